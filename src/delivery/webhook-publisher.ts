import { createHmac } from 'node:crypto';
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import { paddedIds } from '../db/dialect.js';
import { batchedLookup } from '../infrastructure/batched-lookup.js';
import { describeNetworkError, requestScope, throwIfStopping } from '../infrastructure/outbound.js';
import type { DomainContext } from '../domain/context.js';
import { DEFAULT_DESTINATION_LIMITS } from '../config/destination-limits.js';
import type { DestinationLimits } from '../config/destination-limits.js';
import { DeliveryFailure, retryAfterMs } from './publisher.js';
import type { Delivery, Publisher } from './publisher.js';
import type { PublisherKind } from './publisher-kind.js';

export const SIGNATURE_HEADER = 'x-statusbot-signature';

/** `sha256=<hex>`: HMAC-SHA256 of the exact body under the subscriber's secret. */
export const signBody = (secret: string, body: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export interface WebhookPublisherOptions {
  ctx: DomainContext;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  userAgent?: string;
  /** Fired when the process stops: a POST under way ends with StoppingError and its row is delivered after the next start. */
  stop?: AbortSignal;
  /** How hard one webhook URL is driven. */
  limits?: DestinationLimits;
}

/**
 * Status page subscribers' webhooks: a JSON POST of the notification, signed in
 * `X-Statusbot-Signature`, with the row's `Idempotency-Key` (the same on every
 * retry). Any 2xx confirms; anything else is retried.
 */
export function createWebhookPublisher(options: WebhookPublisherOptions): Publisher {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const limits = options.limits ?? DEFAULT_DESTINATION_LIMITS;
  // Deliveries start in batches (one claim): their subscribers are read together.
  const subscriberOf = batchedLookup(async (ids: readonly number[]) => {
    const rows = await options.ctx.db.selectFrom('subscribers').select(['id', 'target', 'secret']).where('id', 'in', paddedIds(ids)).execute();
    return new Map(rows.map((row) => [row.id, row]));
  });
  return {
    name: 'webhook',
    streamPrefix: 'subscriber:',
    minIntervalMs: () => 0,
    streamWidth: limits.concurrency,
    ...(limits.perSecond === null ? {} : { streamRate: limits.perSecond }),
    async deliver(delivery: Delivery) {
      const subscriber = delivery.subscriberId === null ? undefined : await subscriberOf(delivery.subscriberId);
      if (!subscriber?.secret) throw new DeliveryFailure('the subscriber no longer exists');
      let response: Dispatcher.ResponseData;
      throwIfStopping(options.stop);
      // The whole exchange, a body that trickles in included, ends at the timeout, or earlier with the delivery.
      const { signal, release } = requestScope(timeoutMs, options.stop, delivery.signal);
      try {
        try {
          response = await request(subscriber.target, {
            method: 'POST',
            body: delivery.body,
            headers: {
              'content-type': 'application/json',
              'user-agent': options.userAgent ?? 'statusbot-webhooks',
              [SIGNATURE_HEADER]: signBody(subscriber.secret, delivery.body),
              'x-statusbot-event': delivery.event,
              'x-statusbot-delivery': String(delivery.id),
              'idempotency-key': delivery.idempotencyKey,
            },
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
            signal,
            ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
          });
        } catch (error) {
          throwIfStopping(options.stop);
          throw new DeliveryFailure(`POST ${subscriber.target}: ${describeNetworkError(error, timeoutMs, signal)}`);
        }
        // The body is read to its end within the same deadline: a receiver that trickles it holds no delivery for longer.
        const whole = await response.body.dump({ limit: 64 * 1024, signal }).then(
          () => true,
          () => false,
        );
        if (response.statusCode >= 200 && response.statusCode < 300) {
          // A 2xx cut short by the stop was received all the same; cut short by the deadline, it is tried again (receivers deduplicate by the key).
          if (whole || options.stop?.aborted) return;
          throw new DeliveryFailure(
            `POST ${subscriber.target}: HTTP ${response.statusCode}, but ${describeNetworkError(undefined, timeoutMs, signal)} before its body ended`,
          );
        }
        throw new DeliveryFailure(`POST ${subscriber.target}: HTTP ${response.statusCode}`, {
          retryAfterMs: retryAfterMs(response.headers['retry-after']),
          rateLimited: response.statusCode === 429,
        });
      } finally {
        release();
      }
    },
  };
}

export const webhook = {
  kind: 'webhook',
  create: ({ ctx, dispatcher, timeoutMs, stop, limits }) => createWebhookPublisher({ ctx, dispatcher, timeoutMs, stop, limits }),
} satisfies PublisherKind<'webhook'>;
