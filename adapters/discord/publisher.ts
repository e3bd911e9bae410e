import { DiscordAPIError, HTTPError, RateLimitError, Routes } from 'discord.js';
import type { APIMessage, REST, RESTPostAPIChannelMessageJSONBody } from 'discord.js';
import { DeliveryFailure } from '../../src/delivery/publisher.js';
import type { Delivery, DeliveryRecorder, Publisher } from '../../src/delivery/publisher.js';
import { digestSubject, incidentSubject } from '../../src/domain/notifications/announcement.js';
import type { Announcement, DigestAnnouncement, IncidentAnnouncement } from '../../src/domain/notifications/announcement.js';
import { digestMessage, incidentMessage, monitorMessage, statusChangeMessage, updateReply } from './embeds.js';

const STREAM_PREFIX = 'discord:';
const UNKNOWN_MESSAGE = 10008;

/** The channel of a `discord:<guild>:<channel>` stream. */
function channelOf(stream: string): string {
  const channelId = stream.split(':')[2];
  if (!channelId) throw new DeliveryFailure(`${stream} is not a discord:<guild>:<channel> stream`);
  return channelId;
}

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

const isUnknownMessage = (error: unknown): boolean =>
  error instanceof DiscordAPIError && (error.status === 404 || error.code === UNKNOWN_MESSAGE);

/**
 * Delivers `discord:` outbox rows. An incident has one message per channel,
 * posted once and then edited in place; each later update is also posted as
 * a reply to it. Every confirmed step is recorded before the next, so that
 * a retry (after a failure or a restart) resumes where the last attempt
 * stopped. A message POST carries a nonce with `enforce_nonce`, so that a
 * retry after a lost response gets the same message back instead of a second one.
 */
export function createDiscordPublisher(options: { rest: REST }): Publisher {
  const { rest } = options;

  async function post(channelId: string, body: RESTPostAPIChannelMessageJSONBody, nonce: string): Promise<string> {
    try {
      const message = (await rest.post(Routes.channelMessages(channelId), {
        body: { ...body, nonce, enforce_nonce: true },
      })) as APIMessage;
      return message.id;
    } catch (error) {
      throw asDeliveryFailure(`POST message to channel ${channelId}`, error);
    }
  }

  /** Edits the incident's message; null when it was deleted in Discord meanwhile. */
  async function edit(channelId: string, messageId: string, body: RESTPostAPIChannelMessageJSONBody): Promise<string | null> {
    try {
      await rest.patch(Routes.channelMessage(channelId, messageId), { body });
      return messageId;
    } catch (error) {
      if (isUnknownMessage(error)) return null;
      throw asDeliveryFailure(`PATCH message ${messageId} in channel ${channelId}`, error);
    }
  }

  async function deliverIncident(delivery: Delivery, recorder: DeliveryRecorder, channelId: string, a: IncidentAnnouncement) {
    const subject = incidentSubject(a.incident.id);
    let main = delivery.progress.main ?? null;
    if (main === null) {
      const body = incidentMessage(a);
      const existing = await recorder.messageOf(channelId, subject);
      main = existing === null ? null : await edit(channelId, existing, body);
      // A channel that never showed the incident is not told it was deleted.
      if (main === null && a.event === 'deleted') return;
      if (main === null) {
        main = await post(channelId, body, `sb${delivery.id}m`);
        await recorder.rememberMessage(channelId, subject, main);
      }
      await recorder.step('main', main);
    }
    // The opening update is what the new message itself shows.
    if (a.update && a.event !== 'created' && delivery.progress.reply === undefined) {
      const body = {
        ...updateReply(a, a.update),
        message_reference: { message_id: main, channel_id: channelId, fail_if_not_exists: false },
      };
      await recorder.step('reply', await post(channelId, body, `sb${delivery.id}r`));
    }
  }

  /** A message posted once: a status change, a monitor alert, a digest that is not edited in place. */
  async function deliverOnce(delivery: Delivery, recorder: DeliveryRecorder, channelId: string, body: RESTPostAPIChannelMessageJSONBody) {
    if (delivery.progress.posted !== undefined) return delivery.progress.posted;
    const id = await post(channelId, body, `sb${delivery.id}p`);
    await recorder.step('posted', id);
    return id;
  }

  async function deliverDigest(delivery: Delivery, recorder: DeliveryRecorder, channelId: string, a: DigestAnnouncement) {
    const subject = digestSubject(a.subscriptionId);
    const body = digestMessage(a);
    if (a.editInPlace && delivery.progress.posted === undefined) {
      const existing = await recorder.messageOf(channelId, subject);
      const edited = existing === null ? null : await edit(channelId, existing, body);
      if (edited !== null) {
        await recorder.step('posted', edited);
        return;
      }
    }
    const id = await deliverOnce(delivery, recorder, channelId, body);
    // Remembered either way, so that switching to edit_in_place edits the latest digest.
    await recorder.rememberMessage(channelId, subject, id);
  }

  return {
    name: 'discord',
    accepts: (stream) => stream.startsWith(STREAM_PREFIX),
    // The REST client paces by Discord's rate-limit headers; nothing to add per channel.
    minIntervalMs: () => 0,
    async deliver(delivery, recorder) {
      const channelId = channelOf(delivery.stream);
      const announcement = delivery.payload as Announcement;
      switch (announcement.kind) {
        case 'incident':
          return deliverIncident(delivery, recorder, channelId, announcement);
        case 'status_change':
          await deliverOnce(delivery, recorder, channelId, statusChangeMessage(announcement));
          return;
        case 'monitor':
          await deliverOnce(delivery, recorder, channelId, monitorMessage(announcement));
          return;
        case 'digest':
          return deliverDigest(delivery, recorder, channelId, announcement);
        default: {
          const unknown: never = announcement;
          throw new DeliveryFailure(`unknown announcement ${JSON.stringify((unknown as { kind?: unknown }).kind)}`);
        }
      }
    },
  };
}
