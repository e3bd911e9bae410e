import { createHmac } from 'node:crypto';
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import { describeNetworkError, requestSignal, throwIfStopping } from '../infrastructure/outbound.js';
import type { DomainContext } from '../domain/context.js';
import { DeliveryFailure, retryAfterMs } from './publisher.js';
import type { Delivery, Publisher } from './publisher.js';

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
}

/**
 * Status page subscribers' webhooks: a JSON POST of the notification, signed in
 * `X-Statusbot-Signature`. Any 2xx confirms; anything else is retried.
 */
export function createWebhookPublisher(options: WebhookPublisherOptions): Publisher {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    name: 'webhook',
    streamPrefix: 'subscriber:',
    minIntervalMs: () => 0,
    async deliver(delivery: Delivery) {
      const subscriber =
        delivery.subscriberId === null
          ? undefined
          : await options.ctx.db.selectFrom('subscribers').select(['target', 'secret']).where('id', '=', delivery.subscriberId).executeTakeFirst();
      if (!subscriber?.secret) throw new DeliveryFailure('the subscriber no longer exists');
      let response: Dispatcher.ResponseData;
      throwIfStopping(options.stop);
      // The whole exchange, a body that trickles in included, ends at the timeout.
      const signal = requestSignal(timeoutMs, options.stop);
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
      // The status decides: a 2xx whose body is cut short by the timeout or the stop was received all the same.
      await response.body.dump().catch(() => undefined);
      if (response.statusCode >= 200 && response.statusCode < 300) return;
      throw new DeliveryFailure(`POST ${subscriber.target}: HTTP ${response.statusCode}`, {
        retryAfterMs: retryAfterMs(response.headers['retry-after']),
        rateLimited: response.statusCode === 429,
      });
    },
  };
}
