import type { ChatPlatform } from '../../src/domain/model/channel.js';

/** How a platform marks up text; user text always goes through `text`. */
export interface Markup {
  bold(text: string): string;
  italic(text: string): string;
  code(text: string): string;
  link(url: string, label: string): string;
  /** User text, escaped where the platform reads it as markup. */
  text(text: string): string;
}

/** The lines of help and usage, by verb; each platform writes them in its own command syntax. */
export type Syntax =
  | 'incident_new'
  | 'incident_update'
  | 'incident_resolve'
  | 'incident_list'
  | 'incident_show'
  | 'incident_lead'
  | 'incident_room'
  | 'incident_note'
  | 'incident_postmortem'
  | 'incident'
  | 'status'
  | 'report'
  | 'subscribe_incidents'
  | 'subscribe_service'
  | 'subscribe_monitor'
  | 'subscribe_board'
  | 'unsubscribe'
  | 'subscriptions'
  | 'maintenance'
  | 'link'
  | 'help';

/** What a member must hold to change what a workspace or a channel does. */
export type ChatRight = 'link_workspace' | 'manage_channel';

/** What the wording needs to know of a platform: its markup, its nouns and its command syntax. */
export interface ChatDialect {
  platform: ChatPlatform;
  markup: Markup;
  /** What the platform calls a workspace: "Slack workspace", "server". */
  workspace: string;
  syntax: Record<Syntax, string>;
  /** Who holds a right, as members of the platform know it. */
  holders: Record<ChatRight, string>;
  /** What a channel may need before the bot can post in it, said after subscribing ('' when nothing). */
  subscribeHint: string;
}
