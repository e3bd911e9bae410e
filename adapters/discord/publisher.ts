import { ChannelType, DiscordAPIError, HTTPError, OverwriteType, PermissionFlagsBits, RateLimitError, Routes } from 'discord.js';
import type { APIChannel, APIMessage, REST, RESTPostAPIChannelMessageJSONBody } from 'discord.js';
import { DeliveryFailure } from '../../src/delivery/publisher.js';
import type { Publisher } from '../../src/delivery/publisher.js';
import { RoomRefused, createChatPublisher } from '../chat/delivery.js';
import type { ChatPort, RoomHooks } from '../chat/delivery.js';
import { discordRenderer } from './render.js';

const UNKNOWN_MESSAGE = 10008;

/** Any REST failure as the worker understands it: a 429 or an empty bucket says when to come back. */
function asDeliveryFailure(what: string, error: unknown): DeliveryFailure {
  if (error instanceof RateLimitError) {
    return new DeliveryFailure(`${what}: rate limited${error.global ? ' (global)' : ''} for ${error.retryAfter} ms`, {
      rateLimited: true,
      retryAfterMs: Math.max(0, Math.ceil(error.retryAfter)),
    });
  }
  if (error instanceof DiscordAPIError || error instanceof HTTPError) {
    return new DeliveryFailure(`${what}: HTTP ${error.status} ${error.message}`);
  }
  return new DeliveryFailure(`${what}: ${error instanceof Error ? error.message : String(error)}`);
}

/** Discord's refusals of a room that no retry changes: the bot may not manage channels, or the name is refused. */
function roomRefusal(error: unknown): string | null {
  if (!(error instanceof DiscordAPIError)) return null;
  if (error.status === 403) return 'missing_permissions';
  if (error.status === 400) return error.message;
  return null;
}

/** What an invited member may do in a room: see it and speak in it. */
const MEMBER_ALLOW = String(PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.ReadMessageHistory);

const isUnknownMessage = (error: unknown): boolean => error instanceof DiscordAPIError && (error.status === 404 || error.code === UNKNOWN_MESSAGE);

/**
 * Discord's side of the delivery port. A POST carries the step's key as a
 * nonce with `enforce_nonce`, so that a retry after a lost response gets the
 * same message back instead of a second one. A reply is a message with a
 * reference to the incident's message.
 */
export function discordPort(rest: REST): ChatPort<RESTPostAPIChannelMessageJSONBody> {
  async function post(channelId: string, body: RESTPostAPIChannelMessageJSONBody, nonce: string, signal?: AbortSignal): Promise<string> {
    try {
      const message = (await rest.post(Routes.channelMessages(channelId), { body: { ...body, nonce, enforce_nonce: true }, signal })) as APIMessage;
      return message.id;
    } catch (error) {
      throw asDeliveryFailure(`POST message to channel ${channelId}`, error);
    }
  }
  return {
    platform: 'discord',
    // The REST client paces by Discord's rate-limit headers; nothing to add per channel.
    minIntervalMs: 0,
    post,
    reply: (channelId, parentId, body, nonce, signal) =>
      post(channelId, { ...body, message_reference: { message_id: parentId, channel_id: channelId, fail_if_not_exists: false } }, nonce, signal),
    async edit(channelId, messageId, body, signal) {
      try {
        await rest.patch(Routes.channelMessage(channelId, messageId), { body, signal });
        return true;
      } catch (error) {
        if (isUnknownMessage(error)) return false;
        throw asDeliveryFailure(`PATCH message ${messageId} in channel ${channelId}`, error);
      }
    },
    async createChannel(guildId, name, signal) {
      try {
        const channel = (await rest.post(Routes.guildChannels(guildId), { body: { name, type: ChannelType.GuildText }, signal })) as APIChannel;
        return channel.id;
      } catch (error) {
        const refused = roomRefusal(error);
        if (refused) throw new RoomRefused(refused);
        throw asDeliveryFailure(`POST channel #${name} in guild ${guildId}`, error);
      }
    },
    // A member's own permission overwrite: what Discord has of an invitation to a channel (PUT sets it, again and again alike).
    async invite(_guildId, channelId, userIds, signal) {
      for (const userId of userIds) {
        try {
          await rest.put(Routes.channelPermission(channelId, userId), { body: { type: OverwriteType.Member, allow: MEMBER_ALLOW, deny: '0' }, signal });
        } catch (error) {
          // Without Manage Roles the room stays open to whoever may see the server's channels.
          if (error instanceof DiscordAPIError && error.status === 403) throw new RoomRefused('missing_permissions');
          throw asDeliveryFailure(`PUT permissions of ${userId} in channel ${channelId}`, error);
        }
      }
    },
  };
}

/** Delivers the outbox rows of `discord:<guild>:<channel>` streams. */
export const createDiscordPublisher = (options: { rest: REST; rooms?: RoomHooks }): Publisher =>
  createChatPublisher(discordPort(options.rest), discordRenderer, options.rooms);
