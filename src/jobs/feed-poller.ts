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

/** A poller's state: its settings, its outbound pool, and the reads under way. */
interface Poller {
  options: FeedPollerOptions;
  dispatcher: Dispatcher;
  inFlight: Set<Promise<void>>;
  leaseMs: number;
}

/** A document as read: unchanged (304), or its body; with the validators for the next conditional request. */
type DocumentRead = { changed: false; validator: Validator } | { changed: true; validator: Validator; body: string };
type Validator = { etag?: string; lastModified?: string };

/**
 * Reads vendors' status feeds through the one outbound client: conditional
 * requests (an unchanged document costs a 304), compressed answers, 5 MiB
 * bodies, 5 redirects, a timeout, at most two connections per host. A read
 * that fails keeps the last known status and backs off; one that changed
 * nothing writes only its time.
 */
export function createFeedPoller(options: FeedPollerOptions): FeedPoller {
  const { dispatcher, close } = createOutboundDispatcher({
    timeoutMs: options.timeoutMs,
    blockPrivateTargets: options.blockPrivateTargets,
    connectionsPerOrigin: 2,
    followRedirects: true,
  });
  // Held a little past the longest read, so that a process that dies mid-read frees the feed soon after.
  const p: Poller = { options, dispatcher, inFlight: new Set(), leaseMs: options.timeoutMs * 3 + 30_000 };
  return {
    async tick() {
      for (const feed of await claim(p)) launch(p, feed);
    },
    pollDue: () => pollDue(p),
    check: (feeds) => checkAll(p, feeds),
    async idle() {
      while (p.inFlight.size > 0) await Promise.race(p.inFlight);
    },
    close,
  };
}

async function fetchDocument(p: Poller, url: string, validator: Validator | undefined): Promise<DocumentRead> {
  const { stop } = p.options;
  throwIfStopping(stop);
  const { signal, release } = requestScope(p.options.timeoutMs, stop);
  try {
    return await readDocument(p, url, validator, signal);
  } finally {
    release();
  }
}

async function readDocument(p: Poller, url: string, validator: Validator | undefined, signal: AbortSignal): Promise<DocumentRead> {
  const { options } = p;
  const { stop } = options;
  const headers: Record<string, string> = {
    'user-agent': options.userAgent,
    accept: 'application/json, application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.5',
    'accept-encoding': 'gzip, deflate, br',
  };
  if (validator?.etag) headers['if-none-match'] = validator.etag;
  if (validator?.lastModified) headers['if-modified-since'] = validator.lastModified;
  let response: Dispatcher.ResponseData;
  try {
    response = await p.dispatcher.request({ origin: new URL(url).origin, path: pathOf(url), method: 'GET', headers, signal });
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

/** Reads a due feed and records what it says; a failure is recorded on the feed, never on its status. */
async function read(p: Poller, feed: DueFeed): Promise<void> {
  const { ctx, logger } = p.options;
  try {
    await readAndApply(p, feed);
  } catch (error) {
    if (error instanceof StoppingError) return;
    p.options.onFetch?.('failed');
    const { message, expected } = failureOf(error);
    if (!expected) logger.error(`feed ${feed.urlname} could not be read`, error);
    if (feed.failures === 0) logger.info(`feed ${feed.urlname} failed: ${message}`);
    await recordFeedFailure(ctx, feed, message, { intervalMs: p.options.intervalMs }).catch((e: unknown) =>
      logger.error(`feed ${feed.urlname}: the failure could not be recorded`, e),
    );
  }
}

async function readAndApply(p: Poller, feed: DueFeed): Promise<void> {
  const { ctx, logger, intervalMs } = p.options;
  const reader = FEED_READERS[feed.kind];
  const urls = reader.documents(feed.url);
  let answers = await Promise.all(urls.map((url) => fetchDocument(p, url, feed.validators[url])));
  const validators = Object.fromEntries(urls.map((url, i) => [url, answers[i]!.validator]));
  if (answers.every((a) => !a.changed)) {
    await recordFeedUnchanged(ctx, feed, { validators, intervalMs });
    p.options.onFetch?.('not_modified');
    return;
  }
  // One document changed: the others are read whole again, since only whole reads make a snapshot.
  answers = await Promise.all(urls.map((url, i) => (answers[i]!.changed ? answers[i]! : fetchDocument(p, url, undefined))));
  const bodies = answers.map((a) => (a.changed ? a.body : ''));
  const snapshot = reader.parse(bodies, { url: feed.url, now: ctx.clock.now() });
  const fingerprint = fingerprintOf(snapshot);
  const fresh = Object.fromEntries(urls.map((url, i) => [url, answers[i]!.validator]));
  if (fingerprint === feed.fingerprint) {
    await recordFeedUnchanged(ctx, feed, { validators: fresh, intervalMs });
    p.options.onFetch?.('ok');
    return;
  }
  // Said when what the feed says changes, not at every read of the same document.
  if (snapshot.skipped.length > 0) {
    logger.warn(`feed ${feed.urlname}: ${snapshot.skipped.length} item(s) left out: ${snapshot.skipped.slice(0, 3).join('; ')}`);
  }
  const { changes, first } = await applyVendorSnapshot(ctx, feed, snapshot, { validators: fresh, fingerprint, intervalMs });
  if (!first && changes > 0) logger.info(`feed ${feed.urlname}: ${changes} incident changes`);
  p.options.onFetch?.('ok');
}

async function check(p: Poller, feed: FeedAddress): Promise<FeedCheck> {
  const reader = FEED_READERS[feed.kind];
  try {
    const answers = await Promise.all(reader.documents(feed.url).map((url) => fetchDocument(p, url, undefined)));
    const bodies = answers.map((a) => (a.changed ? a.body : ''));
    return { ...feed, ok: true, snapshot: reader.parse(bodies, { url: feed.url, now: p.options.ctx.clock.now() }) };
  } catch (error) {
    return { ...feed, ok: false, error: failureOf(error).message };
  }
}

/** Checks the feeds, up to the concurrency at once, in their order. */
async function checkAll(p: Poller, feeds: readonly FeedAddress[]): Promise<FeedCheck[]> {
  const results: FeedCheck[] = new Array(feeds.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < feeds.length; i = next++) results[i] = await check(p, feeds[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(p.options.concurrency, feeds.length) }, worker));
  return results;
}

function launch(p: Poller, feed: DueFeed): void {
  const work = read(p, feed);
  p.inFlight.add(work);
  void work.finally(() => p.inFlight.delete(work));
}

async function claim(p: Poller): Promise<DueFeed[]> {
  const free = p.options.concurrency - p.inFlight.size;
  return free > 0 ? claimDueFeeds(p.options.ctx, { limit: free, leaseMs: p.leaseMs }) : [];
}

async function pollDue(p: Poller): Promise<number> {
  let count = 0;
  for (;;) {
    const feeds = await claim(p);
    if (feeds.length === 0 && p.inFlight.size === 0) return count;
    count += feeds.length;
    for (const feed of feeds) launch(p, feed);
    if (p.inFlight.size > 0) await Promise.race(p.inFlight);
  }
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
