import { webApi } from '@slack/bolt';
import { DeliveryFailure, retryAfterMs } from '../../src/delivery/publisher.js';
import type { Delivery, DeliveryRecorder, Publisher } from '../../src/delivery/publisher.js';
import { digestSubject, incidentSubject } from '../../src/domain/notifications/announcement.js';
import type { Announcement, DigestAnnouncement, IncidentAnnouncement } from '../../src/domain/notifications/announcement.js';
import { digestMessage, incidentMessage, monitorMessage, statusChangeMessage, updateReply } from './blocks.js';
import type { SlackMessage } from './blocks.js';

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
}

/** A WebClient for deliveries: it never waits or retries by itself, so that the outbox worker schedules every retry. */
export function createDeliveryClient(options: { botToken: string; slackApiUrl?: string; logger: webApi.WebClientOptions['logger'] }) {
  return new webApi.WebClient(options.botToken, {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout: 10_000,
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

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

const platformError = (error: unknown): string | null => (error instanceof webApi.WebAPIPlatformError ? error.data.error : null);

/** The message is gone (deleted by someone) or too old to edit: a new one takes its place. */
const GONE = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);

/** Delivers the outbox rows of `slack:<team>:<channel>` streams. */
export function createSlackPublisher(options: { client: SlackPoster }): Publisher {
  const { client } = options;

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

  /** Edits the message in place; false when it no longer exists. */
  async function edit(channel: string, ts: string, message: SlackMessage): Promise<boolean> {
    try {
      await client.chat.update({ channel, ts, ...message });
      return true;
    } catch (error) {
      if (GONE.has(platformError(error) ?? '')) return false;
      throw failure(`chat.update of ${ts} in ${channel}`, error);
    }
  }

  /**
   * Step `message` brings the incident's one message to the current state;
   * step `reply` posts the update in its thread. Each is recorded once
   * Slack confirmed it, so that a retry resumes after the last confirmed step.
   */
  async function deliverIncident(a: IncidentAnnouncement, delivery: Delivery, recorder: DeliveryRecorder): Promise<void> {
    const channel = a.channel.channelId;
    const subject = incidentSubject(a.incident.id);
    let ts = delivery.progress.message;
    if (!ts) {
      const shown = await recorder.messageOf(channel, subject);
      const message = incidentMessage(a);
      if (shown && (await edit(channel, shown, message))) {
        ts = shown;
      } else {
        ts = await post(channel, message);
        await recorder.rememberMessage(channel, subject, ts);
      }
      await recorder.step('message', ts);
    }
    const reply = updateReply(a);
    if (reply && !delivery.progress.reply) {
      await recorder.step('reply', await post(channel, reply, ts));
    }
  }

  /** A message that is posted once and never edited. */
  async function deliverOnce(channel: string, message: SlackMessage, delivery: Delivery, recorder: DeliveryRecorder): Promise<void> {
    if (delivery.progress.message) return;
    await recorder.step('message', await post(channel, message));
  }

  /** With edit-in-place, one message per subscription shows the latest digest. */
  async function deliverDigest(a: DigestAnnouncement, delivery: Delivery, recorder: DeliveryRecorder): Promise<void> {
    const channel = a.channel.channelId;
    const message = digestMessage(a);
    if (!a.editInPlace) return deliverOnce(channel, message, delivery, recorder);
    if (delivery.progress.message) return;
    const subject = digestSubject(a.subscriptionId);
    const shown = await recorder.messageOf(channel, subject);
    if (shown && (await edit(channel, shown, message))) {
      await recorder.step('message', shown);
      return;
    }
    const ts = await post(channel, message);
    await recorder.rememberMessage(channel, subject, ts);
    await recorder.step('message', ts);
  }

  return {
    name: 'slack',
    accepts: (stream) => stream.startsWith('slack:'),
    minIntervalMs: (stream) => (stream.startsWith('slack:') ? SLACK_MIN_INTERVAL_MS : 0),
    async deliver(delivery, recorder) {
      const announcement = delivery.payload as Announcement;
      switch (announcement.kind) {
        case 'incident':
          return deliverIncident(announcement, delivery, recorder);
        case 'status_change':
          return deliverOnce(announcement.channel.channelId, statusChangeMessage(announcement), delivery, recorder);
        case 'monitor':
          return deliverOnce(announcement.channel.channelId, monitorMessage(announcement), delivery, recorder);
        case 'digest':
          return deliverDigest(announcement, delivery, recorder);
        default: {
          const unknown: never = announcement;
          throw new DeliveryFailure(`unknown announcement ${JSON.stringify((unknown as { kind?: unknown }).kind)}`);
        }
      }
    },
  };
}
