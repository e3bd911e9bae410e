import { sql } from 'kysely';
import type { DomainContext } from '../domain/context.js';
import type { Logger } from '../infrastructure/logger.js';
import { plural } from '../domain/plural.js';
import { claimDue, markSentBatch, releaseClaim, settleRowsOfPlatformsOff } from './outbox-queue.js';
import type { ClaimedEntry } from './outbox-queue.js';
import { deliverOne } from './outbox-delivery.js';
import type { AttemptSettings, DeliveryResult } from './outbox-delivery.js';
import { allowance, createStreamPacing, forgetEnded, holdUntil, recordStart } from './stream-pacing.js';
import type { StreamPacing } from './stream-pacing.js';
import { followEventLoop } from './yield-to-requests.js';
import type { DeliveryCeiling } from './yield-to-requests.js';
import type { Publisher } from './publisher.js';

export type { DeliveryResult };
export { idempotencyKeyOf } from './outbox-delivery.js';

export interface OutboxWorkerOptions {
  ctx: DomainContext;
  publishers: readonly Publisher[];
  logger: Logger;
  /** Failed attempts before a row is dead-lettered. */
  maxAttempts?: number;
  /** First retry delay; doubles with each attempt, with jitter, up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** How long a claim holds a row; renewed every third of it while the delivery runs. */
  leaseMs?: number;
  /** How long one delivery may take, all its steps and a body that trickles in included. */
  deadlineMs?: number;
  /** Deliveries under way at once, all streams together; a stream takes at most its publisher's `streamWidth` of them. */
  concurrency?: number;
  /** How often to look for due rows when nothing wakes the worker. */
  pollMs?: number;
  /** Deliveries that may start while the process is busy (default: it follows the event loop, see yield-to-requests). */
  ceiling?: DeliveryCeiling;
  random?: () => number;
  /** Called once per delivery attempt, with the publisher's name (metrics). */
  onDelivered?: (platform: string, result: DeliveryResult) => void;
  /**
   * The process's stop: a delivery still under way when it fires is given up
   * (not an attempt) and its row given back at once, for the next start or
   * another replica, rather than held until its lease runs out.
   */
  stop?: AbortSignal;
}

export interface OutboxWorker {
  start(): void;
  /** Stops taking rows and waits for the deliveries under way. */
  stop(): Promise<void>;
  /** Looks for due rows now (after a commit that queued some). */
  wake(): void;
  /** Delivers every row that is due, including those that fall due while it runs briefly; for tests and the CLI. */
  drain(): Promise<void>;
}

/** Rows queued while their platform was off are looked at on the first pass, then once a minute. */
const SETTLE_MS = 60_000;
/**
 * How long confirmations and freed slots gather before one write marks them
 * and one claim refills them: on SQLite every write transaction takes the
 * file's one write lock, which the replicas and the API share.
 */
const GATHER_MS = 50;
/** Deliveries started together before requests that came in meanwhile are answered. */
const START_SLICE = 8;
/** A delivery younger than this counts against the ceiling; an older one is waiting on its receiver. */
const WORKING_MS = 1_000;

/** A worker's state: its settings, the deliveries under way, the streams' pacing, and its timers. */
interface Worker extends AttemptSettings {
  options: OutboxWorkerOptions;
  publishers: readonly Publisher[];
  concurrency: number;
  pollMs: number;
  // A started worker follows its event loop; one that only drains (the CLI) runs at its concurrency.
  ceiling: DeliveryCeiling;
  /** Deliveries under way, by row id. */
  inFlight: Map<number, { stream: string; work: Promise<void>; startedAt: number }>;
  widths: Record<string, number>;
  pacing: StreamPacing;
  confirmations: { id: number; lease: string; settle: (marked: boolean) => void; fail: (error: unknown) => void }[];
  flushing: Promise<void> | null;
  running: boolean;
  /** Set by `stop`: claimed rows not started yet are given back. */
  stopping: boolean;
  timer: NodeJS.Timeout | undefined;
  timerAt: number;
  pass: Promise<void> | null;
  again: boolean;
  settledAt: number;
  soon: NodeJS.Timeout | undefined;
}

/**
 * Delivers outbox rows: streams side by side, a chat stream's rows in order,
 * a webhook's or mail address's up to its publisher's width at once; each row
 * marked sent only once its publisher confirmed it (confirmations that arrive
 * together are marked in one transaction). Failures retry with
 * exponential backoff and jitter (a Retry-After is honoured) and, after
 * `maxAttempts`, the row is dead-lettered. Rows left pending by a crash are
 * simply due again after the next start.
 */
export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const w = workerOf(options);
  return {
    start: () => start(w),
    stop: () => stop(w),
    wake: () => wake(w),
    drain: () => drain(w),
  };
}

function workerOf(options: OutboxWorkerOptions): Worker {
  const { publishers } = options;
  const concurrency = options.concurrency ?? 64;
  const baseDelayMs = options.baseDelayMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 15 * 60_000;
  const random = options.random ?? Math.random;
  const w: Worker = {
    options,
    ctx: options.ctx,
    logger: options.logger,
    publishers,
    maxAttempts: options.maxAttempts ?? 10,
    leaseMs: options.leaseMs ?? 60_000,
    deadlineMs: options.deadlineMs ?? 60_000,
    stop: options.stop,
    onDelivered: options.onDelivered,
    concurrency,
    pollMs: options.pollMs ?? 1_000,
    ceiling: options.ceiling ?? { current: () => concurrency, stop: () => undefined },
    inFlight: new Map(),
    widths: Object.fromEntries(publishers.map((p) => [p.streamPrefix, p.streamWidth ?? 1])),
    pacing: createStreamPacing((stream) => publisherFor(w, stream)?.streamRate),
    confirmations: [],
    flushing: null,
    running: false,
    stopping: false,
    timer: undefined,
    timerAt: Number.POSITIVE_INFINITY,
    pass: null,
    again: false,
    settledAt: Number.NEGATIVE_INFINITY,
    soon: undefined,
    backoff(attempt) {
      const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
      return Math.round(ceiling / 2 + (random() * ceiling) / 2);
    },
    confirm: (entry) => confirm(w, entry),
    holdUntil: (stream, at) => hold(w, stream, at),
  };
  return w;
}

const publisherFor = (w: Worker, stream: string) => w.publishers.find((p) => stream.startsWith(p.streamPrefix));

function start(w: Worker): void {
  if (w.running) return;
  w.running = true;
  w.stopping = false;
  // Never below half the concurrency: a busy machine slows a drain, it does not starve it.
  if (!w.options.ceiling) w.ceiling = followEventLoop({ max: w.concurrency, min: Math.ceil(w.concurrency / 2), lateMs: 1 });
  wake(w);
  schedule(w);
}

async function stop(w: Worker): Promise<void> {
  w.running = false;
  w.stopping = true;
  clearTimeout(w.timer);
  clearTimeout(w.soon);
  w.ceiling.stop();
  await w.pass;
  await Promise.all([...w.inFlight.values()].map((d) => d.work));
}

/** Holds a stream back until `at`; the next pass comes then if the timer would wake later. */
function hold(w: Worker, stream: string, at: number): void {
  holdUntil(w.pacing, stream, at);
  if (w.running && at < w.timerAt) {
    clearTimeout(w.timer);
    schedule(w);
  }
}

/** Marks a confirmed row sent along with the others confirmed meanwhile: one transaction, not one per row. */
function confirm(w: Worker, entry: ClaimedEntry): Promise<boolean> {
  return new Promise((settle, fail) => {
    w.confirmations.push({ id: entry.id, lease: entry.lease, settle, fail });
    if (w.flushing) return;
    w.flushing = markConfirmed(w).finally(() => {
      w.flushing = null;
    });
  });
}

async function markConfirmed(w: Worker): Promise<void> {
  await new Promise((r) => setTimeout(r, GATHER_MS));
  while (w.confirmations.length > 0) {
    const batch = w.confirmations.splice(0, 500);
    try {
      const marked = await markSentBatch(w.ctx, batch);
      for (const c of batch) c.settle(marked.has(c.id));
    } catch (error) {
      for (const c of batch) c.fail(error);
    }
  }
}

/** Rows queued while their platform was off: marked waiting, or expired after a day (first pass, then once a minute). */
async function settle(w: Worker): Promise<void> {
  if (Date.now() - w.settledAt < SETTLE_MS) return;
  w.settledAt = Date.now();
  const { waiting, expired } = await settleRowsOfPlatformsOff(w.ctx);
  if (waiting > 0) w.logger.info(`${plural(waiting, 'chat notification')} wait for a platform that is off here`, { waiting });
  if (expired > 0) w.logger.warn(`${plural(expired, 'chat notification')} expired: the platform was off for a day`, { expired });
}

/**
 * One look for due rows; starts deliveries up to the concurrency, and up to
 * the ceiling among those that started in the last second: a delivery that
 * waits on a slow receiver costs the process nothing, and is not counted.
 */
async function runPass(w: Worker): Promise<void> {
  await settle(w);
  const now = Date.now();
  const working = [...w.inFlight.values()].filter((d) => now - d.startedAt < WORKING_MS).length;
  const free = Math.min(w.concurrency - w.inFlight.size, w.ceiling.current() - working);
  if (free <= 0) return;
  const claimed = await claimDue(w.ctx, {
    limit: free,
    leaseMs: w.leaseMs,
    busy: busyStreams(w, now),
    streamPrefixes: w.publishers.map((p) => p.streamPrefix),
    widths: w.widths,
    allowance: (stream) => Math.floor(allowance(w.pacing, stream, now)),
  });
  await startClaimed(w, claimed);
}

/** Streams that take no row now: an ordered stream under way (a wide one is held to its width by the claim itself), or one held back. */
function busyStreams(w: Worker, now: number): Set<string> {
  const busy = new Set([...w.inFlight.values()].filter((d) => (w.widths[publisherFor(w, d.stream)?.streamPrefix ?? ''] ?? 1) <= 1).map((d) => d.stream));
  for (const [stream, at] of w.pacing.readyAt) {
    if (at > now) busy.add(stream);
    else w.pacing.readyAt.delete(stream);
  }
  forgetEnded(w.pacing, now);
  return busy;
}

/** Starts the claimed rows' deliveries, a slice at a time; at a stop, the rows not started are given back. */
async function startClaimed(w: Worker, claimed: readonly ClaimedEntry[]): Promise<void> {
  // A start counts from when its request can leave, not from when the pass began.
  let startedAt = Date.now();
  for (const [i, entry] of claimed.entries()) {
    if (i > 0 && i % START_SLICE === 0) {
      // Each start does its own work at once (the body signed, the request made): requests that came in
      // meanwhile are answered between slices rather than wait behind a whole claim's.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (w.stopping) {
        for (const left of claimed.slice(i)) await releaseClaim(w.ctx, left.id, left.lease);
        return;
      }
      startedAt = Date.now();
    }
    const ended = recordStart(w.pacing, entry.stream, startedAt, (stream, at) => hold(w, stream, at));
    const publisher = publisherFor(w, entry.stream)!;
    const work = deliverOne(w, entry, publisher)
      .catch((error: unknown) => w.logger.error(`outbox row ${entry.id} could not be recorded`, error))
      .finally(() => {
        ended();
        w.inFlight.delete(entry.id);
        if (w.running) wakeSoon(w);
      });
    w.inFlight.set(entry.id, { stream: entry.stream, work, startedAt });
  }
}

/** A pass shortly, for the slots freed meanwhile together. */
function wakeSoon(w: Worker): void {
  w.soon ??= setTimeout(() => {
    w.soon = undefined;
    wake(w);
  }, GATHER_MS);
}

function wake(w: Worker): void {
  if (w.pass) {
    w.again = true;
    return;
  }
  w.pass = runPass(w)
    .catch((error: unknown) => w.logger.error('outbox worker pass failed', error))
    .finally(() => {
      w.pass = null;
      if (w.again) {
        w.again = false;
        wake(w);
      }
    });
}

function schedule(w: Worker): void {
  if (!w.running) return;
  // The next pass comes when a paced stream is ready again, or at the poll interval.
  const soonest = Math.min(Date.now() + w.pollMs, ...w.pacing.readyAt.values());
  w.timerAt = Math.max(Date.now() + 10, soonest);
  w.timer = setTimeout(
    () => {
      wake(w);
      schedule(w);
    },
    Math.max(10, soonest - Date.now()),
  );
}

/** Passes until nothing is due but rows that wait for their stream's pacing, which it waits out. */
async function drain(w: Worker): Promise<void> {
  for (;;) {
    await runPass(w);
    if (w.inFlight.size > 0) {
      await Promise.race([...w.inFlight.values()].map((d) => d.work));
      continue;
    }
    // Nothing could start: finished, unless due rows wait only for their stream's pacing.
    const paced = [...w.pacing.readyAt].filter(([, at]) => at > Date.now());
    const waiting = await dueStreams(w);
    const waits = paced.filter(([stream]) => waiting.has(stream)).map(([, at]) => at - Date.now());
    if (waits.length === 0) return;
    await new Promise((r) => setTimeout(r, Math.min(...waits)));
  }
}

/** Streams with a row due now that some publisher takes. */
async function dueStreams(w: Worker): Promise<Set<string>> {
  const now = w.ctx.clock.now().getTime();
  const rows = await w.ctx.db
    .selectFrom('outbox')
    .select('stream')
    .distinct()
    .where('state', '=', sql.lit('pending'))
    .where('next_attempt_at', '<=', now)
    .execute();
  return new Set(rows.map((r) => r.stream).filter((stream) => publisherFor(w, stream) !== undefined));
}
