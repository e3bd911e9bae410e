import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Logger } from '../infrastructure/logger.js';
import {
  BodyTooLargeError,
  StoppingError,
  createOutboundDispatcher,
  describeNetworkError,
  headerValue,
  pathOf,
  readLimited,
  requestScope,
  throwIfStopping,
} from '../infrastructure/outbound.js';
import type { DomainContext } from '../domain/context.js';
import { claimDueFeeds, recordFeedFailure, recordFeedUnchanged } from '../domain/vendors/vendor-feeds.js';
import type { DueFeed } from '../domain/vendors/vendor-feeds.js';
import { applyVendorSnapshot } from '../domain/vendors/vendor-ingest.js';
import { FEED_READERS } from '../ingest/feed-readers.js';
import { FeedFormatError } from '../ingest/vendor-snapshot.js';
import type { VendorSnapshot } from '../ingest/vendor-snapshot.js';

/** A feed document may be this large; a larger one is an error of the feed. */
export const MAX_FEED_BYTES = 5 * 1024 * 1024;

export interface FeedPollerOptions {
  ctx: DomainContext;
  logger: Logger;
  intervalMs: number;
  timeoutMs: number;
  /** Feeds read at once. */
  concurrency: number;
  blockPrivateTargets: boolean;
  userAgent: string;
  /** Called once per read of a feed (metrics). */
  onFetch?: (result: FeedFetchResult) => void;
  /** Fired when the process stops: reads under way end, record nothing, and their feeds' leases expire. */
  stop?: AbortSignal;
}

/** `not_modified`: every document answered 304; `ok`: read whole (changed or not). */
export type FeedFetchResult = 'ok' | 'not_modified' | 'failed';

export interface FeedPoller {
  /** Starts reading every watched feed that is due, up to the concurrency, and returns without waiting. */
  tick(): Promise<void>;
  /** Reads every due feed and waits for all; `statusbot jobs run feeds` and tests. */
  pollDue(): Promise<number>;
  /** Reads each feed once, whole, and says what it found or why it failed; records nothing (`statusbot feeds check`). */
  check(feeds: readonly FeedAddress[]): Promise<FeedCheck[]>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface FeedAddress {
  urlname: string;
  kind: DueFeed['kind'];
  url: string;
}

export type FeedCheck = FeedAddress & ({ ok: true; snapshot: VendorSnapshot } | { ok: false; error: string });

class FeedHttpError extends Error {}

/** Why a read failed, in one line: the feed's own fault as it is, anything else as unexpected. */
function failureOf(error: unknown): { message: string; expected: boolean } {
  const expected = error instanceof FeedHttpError || error instanceof FeedFormatError;
  return { message: expected ? error.message : `unexpected: ${error instanceof Error ? error.message : String(error)}`, expected };
}

/**
 * Reads vendors' status feeds through the one outbound client: conditional
 * requests (an unchanged document costs a 304), compressed answers, 5 MiB
 * bodies, 5 redirects, a timeout, at most two connections per host. A read
 * that fails keeps the last known status and backs off; one that changed
 * nothing writes only its time.
 */
export function createFeedPoller(options: FeedPollerOptions): FeedPoller {
  const { ctx, logger } = options;
  const { dispatcher, close } = createOutboundDispatcher({
    timeoutMs: options.timeoutMs,
    blockPrivateTargets: options.blockPrivateTargets,
    connectionsPerOrigin: 2,
    followRedirects: true,
  });
  const inFlight = new Set<Promise<void>>();
  // Held a little past the longest read, so that a process that dies mid-read frees the feed soon after.
  const leaseMs = options.timeoutMs * 3 + 30_000;

  const { stop } = options;

  async function fetchDocument(url: string, validator: { etag?: string; lastModified?: string } | undefined) {
    throwIfStopping(stop);
    const { signal, release } = requestScope(options.timeoutMs, stop);
    try {
      return await readDocument(url, validator, signal);
    } finally {
      release();
    }
  }

  async function readDocument(url: string, validator: { etag?: string; lastModified?: string } | undefined, signal: AbortSignal) {
    const headers: Record<string, string> = {
      'user-agent': options.userAgent,
      accept: 'application/json, application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
    };
    if (validator?.etag) headers['if-none-match'] = validator.etag;
    if (validator?.lastModified) headers['if-modified-since'] = validator.lastModified;
    let response: Dispatcher.ResponseData;
    try {
      response = await dispatcher.request({ origin: new URL(url).origin, path: pathOf(url), method: 'GET', headers, signal });
    } catch (error) {
      throwIfStopping(stop);
      throw new FeedHttpError(`${url}: ${describeNetworkError(error, options.timeoutMs, signal)}`);
    }
    const header = (name: string) => headerValue(response.headers[name]);
    const next = { ...(header('etag') ? { etag: header('etag')! } : {}), ...(header('last-modified') ? { lastModified: header('last-modified')! } : {}) };
    if (response.statusCode === 304) {
      await response.body.dump().catch(() => undefined);
      return { changed: false as const, validator: validator ?? next };
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await response.body.dump().catch(() => undefined);
      throw new FeedHttpError(`${url}: HTTP ${response.statusCode}`);
    }
    try {
      const body = await readLimited(response, MAX_FEED_BYTES);
      return { changed: true as const, validator: next, body: body.toString('utf8') };
    } catch (error) {
      throwIfStopping(stop);
      if (error instanceof BodyTooLargeError) throw new FeedHttpError(`${url}: ${error.message}`);
      throw new FeedHttpError(`${url}: ${describeNetworkError(error, options.timeoutMs, signal)}`);
    }
  }

  async function read(feed: DueFeed): Promise<void> {
    const reader = FEED_READERS[feed.kind];
    const urls = reader.documents(feed.url);
    try {
      let answers = await Promise.all(urls.map((url) => fetchDocument(url, feed.validators[url])));
      const validators = Object.fromEntries(urls.map((url, i) => [url, answers[i]!.validator]));
      if (answers.every((a) => !a.changed)) {
        await recordFeedUnchanged(ctx, feed, { validators, intervalMs: options.intervalMs });
        options.onFetch?.('not_modified');
        return;
      }
      // One document changed: the others are read whole again, since only whole reads make a snapshot.
      answers = await Promise.all(urls.map((url, i) => (answers[i]!.changed ? answers[i]! : fetchDocument(url, undefined))));
      const bodies = answers.map((a) => (a.changed ? a.body : ''));
      const snapshot = reader.parse(bodies, { url: feed.url, now: ctx.clock.now() });
      const fingerprint = fingerprintOf(snapshot);
      const fresh = Object.fromEntries(urls.map((url, i) => [url, answers[i]!.validator]));
      if (fingerprint === feed.fingerprint) {
        await recordFeedUnchanged(ctx, feed, { validators: fresh, intervalMs: options.intervalMs });
        options.onFetch?.('ok');
        return;
      }
      // Said when what the feed says changes, not at every read of the same document.
      if (snapshot.skipped.length > 0) {
        logger.warn(`feed ${feed.urlname}: ${snapshot.skipped.length} item(s) left out: ${snapshot.skipped.slice(0, 3).join('; ')}`);
      }
      const { changes, first } = await applyVendorSnapshot(ctx, feed, snapshot, { validators: fresh, fingerprint, intervalMs: options.intervalMs });
      if (!first && changes > 0) logger.info(`feed ${feed.urlname}: ${changes} incident changes`);
      options.onFetch?.('ok');
    } catch (error) {
      if (error instanceof StoppingError) return;
      options.onFetch?.('failed');
      const { message, expected } = failureOf(error);
      if (!expected) logger.error(`feed ${feed.urlname} could not be read`, error);
      if (feed.failures === 0) logger.info(`feed ${feed.urlname} failed: ${message}`);
      await recordFeedFailure(ctx, feed, message, { intervalMs: options.intervalMs }).catch((e: unknown) =>
        logger.error(`feed ${feed.urlname}: the failure could not be recorded`, e),
      );
    }
  }

  async function check(feed: FeedAddress): Promise<FeedCheck> {
    const reader = FEED_READERS[feed.kind];
    try {
      const answers = await Promise.all(reader.documents(feed.url).map((url) => fetchDocument(url, undefined)));
      const bodies = answers.map((a) => (a.changed ? a.body : ''));
      return { ...feed, ok: true, snapshot: reader.parse(bodies, { url: feed.url, now: ctx.clock.now() }) };
    } catch (error) {
      return { ...feed, ok: false, error: failureOf(error).message };
    }
  }

  function launch(feed: DueFeed): void {
    const work = read(feed);
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }

  async function claim(): Promise<DueFeed[]> {
    const free = options.concurrency - inFlight.size;
    return free > 0 ? claimDueFeeds(ctx, { limit: free, leaseMs }) : [];
  }

  return {
    async tick() {
      for (const feed of await claim()) launch(feed);
    },
    async pollDue() {
      let count = 0;
      for (;;) {
        const feeds = await claim();
        if (feeds.length === 0 && inFlight.size === 0) return count;
        count += feeds.length;
        for (const feed of feeds) launch(feed);
        if (inFlight.size > 0) await Promise.race(inFlight);
      }
    },
    async check(feeds) {
      const results: FeedCheck[] = new Array(feeds.length);
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < feeds.length; i = next++) results[i] = await check(feeds[i]!);
      };
      await Promise.all(Array.from({ length: Math.min(options.concurrency, feeds.length) }, worker));
      return results;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.race(inFlight);
    },
    close,
  };
}

/** What a snapshot says, as a digest: the times an undated incident takes from the read are not part of it. */
export function fingerprintOf(snapshot: VendorSnapshot): string {
  const dated = snapshot.incidents.map((incident) =>
    incident.undated
      ? { ...incident, createdAt: null, updatedAt: null, resolvedAt: null, updates: incident.updates.map((u) => ({ ...u, createdAt: null })) }
      : incident,
  );
  return createHash('sha256')
    .update(JSON.stringify({ ...snapshot, incidents: dated }))
    .digest('base64url');
}
