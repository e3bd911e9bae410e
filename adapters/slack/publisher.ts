import { webApi } from '@slack/bolt';
import { DeliveryFailure, retryAfterMs } from '../../src/delivery/publisher.js';
import type { Publisher } from '../../src/delivery/publisher.js';
import { RoomRefused, createChatPublisher } from '../chat/delivery.js';
import type { ChatPort, RoomHooks } from '../chat/delivery.js';
import { slackRenderer } from './render.js';
import type { SlackMessage } from './render.js';

/** Slack allows about one message per second per channel. */
export const SLACK_MIN_INTERVAL_MS = 1_000;

/**
 * The subset of the Web API the publisher calls; a WebClient fits. Declared
 * here so that the publisher reads as what it needs from Slack.
 */
export interface SlackPoster {
  chat: {
    postMessage(args: SlackMessage & { channel: string; thread_ts?: string }): Promise<{ ts?: string }>;
    update(args: SlackMessage & { channel: string; ts: string }): Promise<unknown>;
  };
  conversations: {
    create(args: { name: string; is_private?: boolean }): Promise<{ channel?: { id?: string } }>;
    invite(args: { channel: string; users: string }): Promise<unknown>;
  };
}

/** Slack's refusals of a room that no retry changes: said to whoever asked, who may ask again. */
const ROOM_REFUSALS = new Set([
  'name_taken',
  'missing_scope',
  'restricted_action',
  'invalid_name',
  'invalid_name_specials',
  'invalid_name_maxlength',
  'no_permission',
]);
/** Invitations Slack refuses for good (the member is gone, or the app may not invite). */
const INVITE_REFUSALS = new Set(['user_not_found', 'cant_invite', 'missing_scope', 'no_permission', 'user_is_restricted', 'user_is_ultra_restricted']);
/** Invitations that leave the member in the channel already. */
const INVITED_ALREADY = new Set(['already_in_channel', 'cant_invite_self']);

/** Slack's errors as the outbox worker reads them: a 429 says when to come back and is not a failed attempt. */
function failure(what: string, error: unknown): DeliveryFailure {
  if (error instanceof webApi.WebAPIRateLimitedError) {
    return new DeliveryFailure(`${what}: rate limited by Slack`, { rateLimited: true, retryAfterMs: error.retryAfter * 1000 });
  }
  if (error instanceof webApi.WebAPIPlatformError) return new DeliveryFailure(`${what}: ${error.data.error}`);
  if (error instanceof webApi.WebAPIHTTPError) {
    return new DeliveryFailure(`${what}: HTTP ${error.statusCode}`, { retryAfterMs: retryAfterMs(error.headers['retry-after']) });
  }
  return new DeliveryFailure(`${what}: ${error instanceof Error ? error.message : String(error)}`);
}

/** The message is gone (deleted by someone) or too old to edit. */
const GONE = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);

/** Slack's side of the delivery port: chat.postMessage, chat.update, and replies in the message's thread. */
export function slackPort(client: SlackPoster): ChatPort<SlackMessage> {
  async function post(channel: string, message: SlackMessage, threadTs?: string): Promise<string> {
    let result: { ts?: string };
    try {
      result = await client.chat.postMessage({ channel, ...message, ...(threadTs ? { thread_ts: threadTs } : {}) });
    } catch (error) {
      throw failure(`chat.postMessage to ${channel}`, error);
    }
    if (!result.ts) throw new DeliveryFailure(`chat.postMessage to ${channel}: no ts in the answer`);
    return result.ts;
  }
  return {
    platform: 'slack',
    minIntervalMs: SLACK_MIN_INTERVAL_MS,
    // Slack has no idempotency key for posts; a lost answer may post twice, which the step record keeps rare.
    post: (channel, message) => post(channel, message),
    reply: (channel, parent, message) => post(channel, message, parent),
    async edit(channel, ts, message) {
      try {
        await client.chat.update({ channel, ts, ...message });
        return true;
      } catch (error) {
        if (error instanceof webApi.WebAPIPlatformError && GONE.has(error.data.error)) return false;
        throw failure(`chat.update of ${ts} in ${channel}`, error);
      }
    },
    async createChannel(_team, name) {
      let result: { channel?: { id?: string } };
      try {
        result = await client.conversations.create({ name, is_private: false });
      } catch (error) {
        if (error instanceof webApi.WebAPIPlatformError && ROOM_REFUSALS.has(error.data.error)) throw new RoomRefused(error.data.error);
        throw failure(`conversations.create of #${name}`, error);
      }
      if (!result.channel?.id) throw new DeliveryFailure(`conversations.create of #${name}: no channel in the answer`);
      return result.channel.id;
    },
    async invite(_team, channel, users) {
      try {
        await client.conversations.invite({ channel, users: users.join(',') });
      } catch (error) {
        if (error instanceof webApi.WebAPIPlatformError && INVITED_ALREADY.has(error.data.error)) return;
        if (error instanceof webApi.WebAPIPlatformError && INVITE_REFUSALS.has(error.data.error)) throw new RoomRefused(error.data.error);
        throw failure(`conversations.invite into ${channel}`, error);
      }
    },
  };
}

/** Delivers the outbox rows of `slack:<team>:<channel>` streams. */
export const createSlackPublisher = (options: { client: SlackPoster; rooms?: RoomHooks }): Publisher =>
  createChatPublisher(slackPort(options.client), slackRenderer, options.rooms);
