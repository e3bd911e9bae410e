import { isIP } from 'node:net';
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, buildConnector, interceptors } from 'undici';
import type { Dispatcher } from 'undici';
import { BlockedTargetError, guardedLookup, isBlockedAddress } from './target-guard.js';

export const MAX_REDIRECTS = 5;

export interface OutboundSettings {
  timeoutMs: number;
  /** Refuse targets that resolve to loopback, private, link-local or metadata addresses; checked per connection, redirects included. */
  blockPrivateTargets: boolean;
  /** Connections to one origin at once (the rest wait); unlimited when absent. */
  connectionsPerOrigin?: number;
  /** Follow redirects, up to 5: a sixth, a loop or a redirect without Location fails the request. */
  followRedirects?: boolean;
}

/**
 * The one way statusbot reaches addresses that come from config (monitors,
 * vendor feeds, webhooks): an undici pool whose every connection passes the
 * private-address guard, with timeouts, and redirects when asked.
 */
export function createOutboundDispatcher(settings: OutboundSettings): { dispatcher: Dispatcher; close(): Promise<void> } {
  const connect = buildConnector({ timeout: settings.timeoutMs, ...(settings.blockPrivateTargets ? { lookup: guardedLookup } : {}) });
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
    ...(settings.connectionsPerOrigin ? { connections: settings.connectionsPerOrigin } : {}),
    // Every connection passes here, redirects included: literal IPs skip DNS, so they are checked before connecting.
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (settings.blockPrivateTargets && isIP(host) !== 0 && isBlockedAddress(host)) {
        callback(new BlockedTargetError(host), null);
        return;
      }
      connect(options, callback);
    },
  });
  const dispatcher: Dispatcher =
    settings.followRedirects === false ? agent : agent.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTS }), refuseUnfollowedRedirects);
  return { dispatcher, close: () => agent.close() };
}

/** Statuses that send the client elsewhere and so must name where (RFC 9110 §15.4). */
const MOVED = new Set([301, 302, 303, 307, 308]);
/** Statuses undici's redirect interceptor follows when they carry a Location. */
const FOLLOWED = new Set([300, ...MOVED]);

/** A redirect that could not be followed: one too many, one back to an address already visited, or one to nowhere. */
export class RedirectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedirectError';
  }
}

/**
 * Placed outside undici's redirect interceptor, which hands on the last
 * redirect as the answer once it has followed MAX_REDIRECTS: such an answer
 * (or a redirect without a Location) is a failure to reach the target, never
 * a 3xx to count as up.
 */
const refuseUnfollowedRedirects: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) =>
  dispatch(options, {
    onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
    onRequestUpgrade: (controller, statusCode, headers, socket) => handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
    onResponseStart(controller, statusCode, headers, statusMessage) {
      // A throw here ends the request with this error (undici aborts it).
      if (FOLLOWED.has(statusCode) && headers.location) throw new RedirectError(`too many redirects (more than ${MAX_REDIRECTS})`);
      if (MOVED.has(statusCode)) throw new RedirectError(`HTTP ${statusCode} without Location`);
      handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
    },
    onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
    onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
    onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
  });

/** What went wrong reaching a target, in a few words (a timeout, a refused or blocked address, too many redirects, a redirect loop). */
export function describeNetworkError(error: unknown, timeoutMs: number, signal?: AbortSignal): string {
  if (signal?.aborted) return `timeout after ${timeoutMs / 1000} s`;
  let e = error as { code?: string; message?: string; cause?: unknown } | undefined;
  // undici wraps the connector's error; the cause says what happened.
  while (e?.cause && typeof e.cause === 'object' && !(e instanceof BlockedTargetError)) e = e.cause as typeof e;
  if (e instanceof BlockedTargetError || e instanceof RedirectError) return e.message;
  const code = e?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timeout after ${timeoutMs / 1000} s`;
  }
  // undici refuses a redirect back to an address already visited before the limit is reached.
  if (code === 'UND_ERR_INVALID_ARG' && /redirect loop/i.test(e?.message ?? '')) return 'redirect loop';
  return code ? `${code}${e?.message && !e.message.includes(code) ? ` (${e.message})` : ''}` : (e?.message ?? 'network error');
}

export const pathOf = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** A body longer than allowed. */
export class BodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`the body is over ${Math.round(limit / 1024)} KiB`);
    this.name = 'BodyTooLargeError';
  }
}

/** A decoder for a Content-Encoding statusbot asks for (gzip, deflate, br); null for identity. */
function decoderFor(encoding: string | undefined): Transform | null {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new Error(`unsupported content encoding "${encoding}"`);
  }
}

/**
 * Reads a whole body, decoded by its Content-Encoding, refusing (and dropping
 * the connection) once more than `maxBytes` have been decoded: a small
 * compressed body cannot expand into a large one unnoticed. The body and its
 * decoder are one pipeline, so the request's deadline or the stop, which end
 * the body, end a read waiting inside the decoder too (`pipe` would leave the
 * decoder waiting for bytes that never come). A body sent as is that declares
 * more than `maxBytes` in its Content-Length is refused before any is read.
 */
export async function readLimited(response: Pick<Dispatcher.ResponseData, 'body' | 'headers'>, maxBytes: number): Promise<Buffer> {
  const { body, headers } = response;
  const encoding = headerValue(headers['content-encoding']);
  const decoder = decoderFor(encoding);
  if (!decoder && Number(headerValue(headers['content-length'])) > maxBytes) {
    body.destroy();
    throw new BodyTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const collect = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      size += chunk.length;
      if (size > maxBytes) break;
      chunks.push(chunk);
    }
  };
  try {
    await (decoder ? pipeline(body, decoder, collect) : pipeline(body, collect));
  } catch (error) {
    // Leaving the loop early ends the pipeline with an abort: the size is the reason then.
    if (size > maxBytes) throw new BodyTooLargeError(maxBytes);
    throw error;
  } finally {
    body.destroy();
  }
  if (size > maxBytes) throw new BodyTooLargeError(maxBytes);
  return Buffer.concat(chunks);
}

/** A header's value; the first of a repeated one. */
export const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|ECONNABORTED|UND_ERR_[A-Z_]+)$/;

/**
 * Whether reaching another machine failed (refused, no such host, timeout,
 * reset), here or in an error it caused: a condition of the network, told in
 * one line, not a fault of statusbot.
 */
export function isNetworkError(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (e instanceof BlockedTargetError || e instanceof RedirectError || (typeof code === 'string' && NETWORK_CODES.test(code))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Work dropped because the process is stopping: whoever started it records
 * nothing of it (a probe is no outage, a feed read no feed error, a delivery no
 * failed attempt) and leaves what it had claimed to be taken again.
 */
export class StoppingError extends Error {
  constructor() {
    super('dropped: statusbot is stopping');
    this.name = 'StoppingError';
  }
}

/** One piece of outbound work's signal, and what ends it. */
export interface RequestScope {
  /** Fires at the timeout (a TimeoutError), when a parent fires (with its reason), or on `abort`. */
  readonly signal: AbortSignal;
  abort(reason: unknown): void;
  /** The work is over: its timer is cleared and its parents forget it. */
  release(): void;
}

/** The scopes following each parent signal, aborted by its one listener. */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

function follow(parent: AbortSignal, child: AbortController): void {
  let children = followers.get(parent);
  if (!children) {
    const set = new Set<AbortController>();
    children = set;
    followers.set(parent, set);
    parent.addEventListener(
      'abort',
      () => {
        for (const c of set) c.abort(parent.reason);
        set.clear();
      },
      { once: true },
    );
  }
  children.add(child);
}

/**
 * The signal of one request or delivery: its own timeout, or a parent's abort
 * (the process's stop, the delivery it is part of), whichever comes first.
 * One timer and one entry per parent, both given back by `release`:
 * `AbortSignal.timeout` keeps its timer until it runs out (a delivery's whole
 * minute) and `AbortSignal.any` leaves weak references in its sources, so
 * under load every delivery's leftovers outlived the young generation and
 * made each of its collections pause the event loop for milliseconds.
 */
export function requestScope(timeoutMs: number, ...parents: readonly (AbortSignal | undefined)[]): RequestScope {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`timeout after ${timeoutMs / 1000} s`, 'TimeoutError')), timeoutMs);
  timer.unref();
  const followed: AbortSignal[] = [];
  for (const parent of parents) {
    if (!parent) continue;
    if (parent.aborted) {
      controller.abort(parent.reason);
      break;
    }
    follow(parent, controller);
    followed.push(parent);
  }
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    release() {
      clearTimeout(timer);
      for (const parent of followed) followers.get(parent)?.delete(controller);
    },
  };
}

/** Throws StoppingError when `stop` has fired: a failure then is the stop's, not the target's. */
export function throwIfStopping(stop: AbortSignal | undefined): void {
  if (stop?.aborted) throw new StoppingError();
}
