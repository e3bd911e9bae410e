import type { ChatPlatform } from '../../db/schema.js';

export type { ChatPlatform };
export const CHAT_PLATFORMS = ['slack', 'discord'] as const satisfies readonly ChatPlatform[];

/** A channel in a Slack workspace or a Discord guild. */
export interface ChannelRef {
  platform: ChatPlatform;
  workspaceId: string;
  channelId: string;
}

export type SubscriptionKind = 'incidents' | 'service' | 'monitor' | 'board';

export interface ChannelSubscription {
  id: number;
  channel: ChannelRef;
  kind: SubscriptionKind;
  /** The followed service (kind `service`). */
  service: { id: number; name: string; urlname: string } | null;
  /** The followed custom monitor (kind `monitor`). */
  monitor: { id: number; name: string } | null;
  /** The followed board and its digest settings (kind `board`). */
  board: { id: string; name: string; urlname: string } | null;
  digest: { schedule: string; timezone: string; onlyOnChange: boolean; editInPlace: boolean } | null;
}

/** The outbox stream of a channel: its messages are delivered in order. */
export const channelStream = (c: ChannelRef): string => `${c.platform}:${c.workspaceId}:${c.channelId}`;

/** The chat platform a stream delivers to, or null for other streams (webhook subscribers). */
export const platformOfStream = (stream: string): ChatPlatform | null => CHAT_PLATFORMS.find((platform) => stream.startsWith(`${platform}:`)) ?? null;
