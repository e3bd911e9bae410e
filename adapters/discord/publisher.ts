import { DiscordAPIError, HTTPError, RateLimitError, Routes } from 'discord.js';
import type { APIMessage, REST, RESTPostAPIChannelMessageJSONBody } from 'discord.js';
import { DeliveryFailure } from '../../src/delivery/publisher.js';
import type { Publisher } from '../../src/delivery/publisher.js';
import { createChatPublisher } from '../chat/delivery.js';
import type { ChatPort } from '../chat/delivery.js';
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
  };
}

/** Delivers the outbox rows of `discord:<guild>:<channel>` streams. */
export const createDiscordPublisher = (options: { rest: REST }): Publisher => createChatPublisher(discordPort(options.rest), discordRenderer);
