import type { IncomingHttpHeaders } from 'node:http';
import type { ManualClock } from '../../src/domain/clock.js';
import type { FormValues } from '../../adapters/chat/reply.js';
import { ACME_BOARD, ACME_KEY, GLOBEX_KEY } from './test-server.js';
import type { TestServer, TestServerOptions } from './test-server.js';
import { waitUntil } from './wait-until.js';

export type Platform = 'slack' | 'discord';

/** A verb as a test asks for it, free of any platform; each harness writes it in its platform's syntax. */
export type Ask =
  | { verb: 'help' }
  | { verb: 'link'; key: string }
  | { verb: 'subscribe' | 'unsubscribe'; target: string; name?: string; settings?: DigestSettings }
  | { verb: 'subscriptions' }
  | { verb: 'maintenance' }
  /** `via: 'statusbot'` asks through `/statusbot status`. */
  | { verb: 'status'; service: string; via?: 'statusbot' }
  | { verb: 'report'; service: string }
  | { verb: 'incident list' }
  | { verb: 'incident show'; id: number }
  | { verb: 'incident update'; id: number; lead?: Member }
  | { verb: 'incident resolve'; id: number; message?: string }
  | { verb: 'incident new'; service?: string; lead?: Member }
  /** `lead`: who is named, by role (see Where.member). */
  | { verb: 'incident lead'; id?: number; lead: Member }
  | { verb: 'incident room'; id?: number }
  | { verb: 'incident note'; text: string }
  | { verb: 'incident postmortem'; id?: number };

export type Member = 'admin' | 'member' | 'channel-manager';

export interface DigestSettings {
  schedule?: string;
  timezone?: string;
  only_on_change?: boolean;
  edit_in_place?: boolean;
}

/** Who asks, and where: a workspace by name (acme is linked by the config), a channel by name, a member by role. */
export interface Where {
  workspace?: string;
  channel?: string;
  /** A channel by its platform id (a room's), instead of by name. */
  channelId?: string;
  /** `admin` holds every right; `member` none; `channel-manager` may subscribe (Discord's Manage Channels, Slack's listed admins). Each is another user. */
  member?: 'admin' | 'member' | 'channel-manager';
}

/** A form as the platform showed it: its kind, its fields in order and their initial values. */
export interface FormShown {
  kind: 'new' | 'update' | 'resolve';
  fields: string[];
  initial: Partial<Record<string, string>>;
  raw: any;
}

/** What the asker saw: the reply's visible text (embeds flattened on Discord), its buttons, or the form that opened. */
export interface Answer {
  text: string;
  ephemeral: boolean;
  buttons: string[];
  form: FormShown | null;
  raw: any;
}

/** A submitted form's outcome: the confirmation, or the errors (under their inputs where the platform can show them so). */
export interface Submitted {
  text: string;
  fieldErrors: Record<string, string> | null;
}

/**
 * A call the platform's API answered for a channel's messages: a new message, a reply under one (Slack's
 * thread, Discord's message reference), an edit of one; any other call by the platform's own name.
 */
export interface Sent {
  step: 'message' | 'reply' | 'edit' | (string & {});
  /** The message replied to or edited; null for a new message. */
  of: string | null;
  /** When the fake received it (ms since the epoch). */
  at: number;
  /** The request's body, in the platform's shape. */
  body: any;
  headers: IncomingHttpHeaders;
}

/** A call that reached the platform's API, whatever it was answered: its step (as in Sent) and channel. */
export interface PlatformCall {
  step: Sent['step'];
  channel: string | null;
  status: number;
  /** The Retry-After of a 429, in seconds. */
  retryAfterSeconds: number | null;
  at: number;
}

/** A failure the fake platform answers instead (Discord's 429 may be its global one). */
export type PlatformFailure = { status: 500 } | { status: 429; retryAfterSeconds: number; global?: boolean };

/** A message statusbot posted in a channel, with the replies under it (Slack's thread, Discord's replies). */
export interface Shown {
  id: string;
  /** Slack's fallback text; Discord's embed title. */
  headline: string;
  /** Everything the message shows, flattened. */
  text: string;
  replies: string[];
  edits: number;
  buttons: string[];
}

export interface ChatHarness {
  platform: Platform;
  s: TestServer;
  /** The platform's markup, to write exact expectations. */
  bold(text: string): string;
  code(text: string): string;
  /** Channel and workspace ids on this platform, by name. */
  channelId(name: string): string;
  workspaceId(name: string): string;
  ask(ask: Ask, where?: Where): Promise<Answer>;
  submit(form: FormShown, values: FormValues, where?: Where): Promise<Submitted>;
  click(incidentId: number, button: 'update' | 'resolve', where?: Where): Promise<Answer>;
  /** Asks for the service's status, then clicks "Report a problem" on the answer. */
  clickReport(service: string, where?: Where): Promise<Answer>;
  /** The top-level messages of a channel, in posting order. */
  shown(channel: string): Shown[];
  /** What the platform's API received and answered for a channel's messages (by id), in order. */
  sent(channelId: string): Sent[];
  /** Every call that reached the platform's API, in order, however it was answered. */
  calls(): PlatformCall[];
  /** The platform's API answers the next `count` calls (those `pick` takes) with a failure. */
  failNext(count: number, failure: PlatformFailure, pick?: (call: Pick<PlatformCall, 'step' | 'channel'>) => boolean): void;
  /**
   * Stops the server and starts another on the same database (the harness must be started with a `dbPath`),
   * against the same fake; `meanwhile` runs while no server runs.
   */
  restart(options?: { delivery?: TestServerOptions['delivery']; meanwhile?: () => Promise<void> }): Promise<void>;
  /** As if someone deleted the message in the platform. */
  deleteMessage(channel: string, id: string): void;
  /** A channel's top-level messages, by its platform id (a room's). */
  shownIn(channelId: string): Shown[];
  /** The platform's user id of a member, by role. */
  memberId(member?: Member): string;
  /** Channels statusbot opened, with who was invited. */
  rooms(): { id: string; name: string; members: string[] }[];
  /** A member writes in a channel (by id); the message's id. */
  say(channelId: string, text: string, member?: Member): string;
  /** A member reacts with 📌 to a message. */
  pin(channelId: string, messageId: string, member?: Member): Promise<void>;
  /** Files statusbot posted in a channel (by id), with the text that introduced them. */
  filesIn(channelId: string): { filename: string; content: string; comment: string }[];
  /** The platform refuses the next file statusbot posts (Slack: not_in_channel; Discord: missing permissions). */
  refuseNextFile(): void;
  /** The next invitation into a room fails (HTTP 500), `times` times (once by default). */
  failNextInvite(times?: number): void;
  /** The platform refuses the next invitation into a room for good (Slack: cant_invite; Discord: missing permissions). */
  refuseNextInvite(): void;
  /** The platform refuses the next room for good (Slack: name_taken; Discord: missing permissions). */
  refuseNextRoom(): void;
  /** Ends every failure injected that has not happened yet. */
  heal(): void;
  /** Waits until no outbox row of this platform is pending. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  delivery?: TestServerOptions['delivery'];
  /** Channel lines under Acme (`{ channel: incidents, incidents: true }`, written with channel names). */
  channels?: { channel: string; incidents?: boolean; services?: string[]; boards?: string }[];
  /** `chat: { incident_channels: true }` on Acme. */
  incidentChannels?: boolean;
  /** Discord: also the gateway (a fake), over which reactions arrive. */
  gateway?: boolean;
  /** Where the server logs (quiet but for errors by default). */
  logger?: TestServerOptions['logger'];
  /** The services of Acme's board Vendors, a YAML list (`[{ urlname: acme-cloud }]` by default). */
  boardServices?: string;
  /** A database that outlives the server (for `restart`), and a clock that runs on across restarts. */
  dbPath?: string;
  clock?: ManualClock;
}

/** The chat config of a platform's harness: Acme linked with its channels and listed admins; Globex unlinked. */
export function chatConfig(
  platform: Platform,
  workspace: string,
  channels: string,
  admins: string,
  incidentChannels = false,
  boardServices = '[{ urlname: acme-cloud }]',
): string {
  return `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
services:
  - { urlname: acme-cloud, name: Acme Cloud }
  - { urlname: other-cloud, name: Other Cloud }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    boards:
      - id: ${ACME_BOARD}
        name: Vendors
        urlname: vendors
        services: ${boardServices}
    ${platform}: { ${platform === 'slack' ? 'team_id' : 'guild_id'}: "${workspace}"${admins} }
${incidentChannels ? '    chat: { incident_channels: true }\n' : ''}${channels}
  - name: Globex
    plan: business
    api_keys: ["${GLOBEX_KEY}"]
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
`;
}

/** The `channels:` block of Acme, with channel names turned into the platform's ids. */
export function channelsBlock(platform: Platform, channelId: (name: string) => string, channels: HarnessOptions['channels'] = []): string {
  if (channels.length === 0) return '';
  const lines = channels.map((c) => {
    const parts = [`${platform}: "${channelId(c.channel)}"`];
    if (c.incidents) parts.push('incidents: true');
    if (c.services) parts.push(`services: [${c.services.join(', ')}]`);
    if (c.boards) parts.push(`boards: ${c.boards}`);
    return `      - { ${parts.join(', ')} }`;
  });
  return `    channels:\n${lines.join('\n')}`;
}

/** Waits until no outbox row of the platform is pending, and none died. */
export async function settleOutbox(s: TestServer, platform: Platform): Promise<void> {
  const rows = () => s.ctx.db.selectFrom('outbox').select(['id', 'state']).where('stream', 'like', `${platform}:%`).where('state', '!=', 'sent').execute();
  await waitUntil(async () => (await rows()).every((r) => r.state !== 'pending'), { what: `no ${platform} row pending` });
  const dead = (await rows()).filter((r) => r.state === 'dead');
  if (dead.length > 0) throw new Error(`dead outbox rows: ${JSON.stringify(dead)}`);
}
