import type { DomainContext } from '../domain/context.js';
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import { describeNetworkError, readLimited, requestScope, throwIfStopping } from '../infrastructure/outbound.js';
import { DeliveryFailure, retryAfterMs } from './publisher.js';
import { clipText } from '../domain/clip-text.js';

export interface DestinationClientOptions {
  /** The outbound dispatcher (see infrastructure/outbound.ts): the private-target guard applies to every address. */
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  /** Fired when the process stops: a request under way ends with StoppingError. */
  stop?: AbortSignal;
  userAgent?: string;
}

/** A destination's answer, its body read (up to 64 KiB). */
export interface DestinationResponse {
  statusCode: number;
  headers: Dispatcher.ResponseData['headers'];
  text: string;
}

/** Where a request goes, as errors and logs may name it, and the secrets no message may hold. */
export interface Target {
  url: string;
  /** POST unless the API names another (Opsgenie sets a priority by PUT). */
  method?: 'POST' | 'PUT';
  /** The address as shown: without a token in its path or a signature in its query. */
  shown: string;
  secrets: readonly string[];
}

export type PostJson = (target: Target, body: unknown, headers: Record<string, string>, signal: AbortSignal) => Promise<DestinationResponse>;

/** The text with every secret blanked out: a platform may echo a key in its error. */
export const redact = (text: string, secrets: readonly string[]): string => secrets.filter((s) => s.length > 0).reduce((t, s) => t.split(s).join('…'), text);

/** A URL as logs show it: scheme, host and path, no query (a Teams webhook's signature is in it). */
export const shownUrl = (url: string): string => {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
};

/**
 * JSON requests (POST, or the target's method) to pagers and chat APIs: the whole exchange, body included, ends
 * at the timeout or with the delivery; a failure to reach the destination is a
 * DeliveryFailure that names the target as shown, never a secret.
 */
export function createDestinationClient(options: DestinationClientOptions): PostJson {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async (target, body, headers, deliverySignal) => {
    throwIfStopping(options.stop);
    const { signal, release } = requestScope(timeoutMs, options.stop, deliverySignal);
    try {
      const response = await request(target.url, {
        method: target.method ?? 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'user-agent': options.userAgent ?? 'statusbot-notify', ...headers },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
      const text = (await readLimited(response, 64 * 1024)).toString('utf8');
      return { statusCode: response.statusCode, headers: response.headers, text };
    } catch (error) {
      throwIfStopping(options.stop);
      throw new DeliveryFailure(redact(`${target.method ?? 'POST'} ${target.shown}: ${describeNetworkError(error, timeoutMs, signal)}`, target.secrets));
    } finally {
      release();
    }
  };
}

/** Statuses that say the notification itself, or the key it carries, is refused: retrying changes nothing. */
const REFUSED = new Set([400, 401, 403, 404, 410, 413, 422]);

/**
 * The failure an answer other than 2xx is: retried later (a 429 after its
 * Retry-After, or `retryAfterSeconds` when the platform says it in its body),
 * or dead-lettered at once when the platform refused it. `detail`: what the
 * platform said, in a few words.
 */
export function failureOf(target: Target, response: DestinationResponse, detail: string | null, retryAfterSeconds?: number | null): DeliveryFailure {
  const said = detail ? ` (${clipText(detail, 300)})` : '';
  const waitMs = retryAfterSeconds != null ? Math.ceil(retryAfterSeconds * 1000) : retryAfterMs(response.headers['retry-after']);
  return new DeliveryFailure(redact(`${target.method ?? 'POST'} ${target.shown}: HTTP ${response.statusCode}${said}`, target.secrets), {
    retryAfterMs: waitMs,
    rateLimited: response.statusCode === 429,
    permanent: REFUSED.has(response.statusCode),
  });
}

/** The answer's JSON, or null when it is none. */
export function jsonOf(response: DestinationResponse): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(response.text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export const isSuccess = (response: DestinationResponse): boolean => response.statusCode >= 200 && response.statusCode < 300;

/** What each pager or chat publisher is made with. */
export interface DestinationPublisherOptions {
  ctx: DomainContext;
  post: PostJson;
  /** Deliveries started per second to one destination, at most (null: no limit); its rows go one after the other, in order. */
  perSecond?: number | null;
}

/** The fields every pager or chat publisher shares: its rows go one after the other (an open before its resolve). */
export const orderedStream = (kind: string, perSecond: number | null | undefined) => ({
  name: kind,
  streamPrefix: `${kind}:`,
  minIntervalMs: () => 0,
  streamWidth: 1,
  ...(perSecond == null ? {} : { streamRate: perSecond }),
});
