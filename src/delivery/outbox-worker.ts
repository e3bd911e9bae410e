import { sql } from 'kysely';
import { platformOfStream } from '../domain/model/channel.js';
import type { ChatPlatform } from '../domain/model/channel.js';
import type { DomainContext } from '../domain/context.js';
import type { Logger } from '../infrastructure/logger.js';
import { plural } from '../domain/plural.js';
import { StoppingError, requestScope } from '../infrastructure/outbound.js';
import {
  chatMessageOf,
  claimDue,
  markFailed,
  markSentBatch,
  releaseClaim,
  rememberChatMessage,
  renewLease,
  saveProgress,
  settleRowsOfPlatformsOff,
} from './outbox-queue.js';
import type { ClaimedEntry } from './outbox-queue.js';
import { DeliveryFailure } from './publisher.js';
import { followEventLoop } from './yield-to-requests.js';
import type { DeliveryCeiling } from './yield-to-requests.js';
import type { Delivery, DeliveryRecorder, Publisher } from './publisher.js';

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

/** How an attempt ended: `rate_limited` does not count as an attempt, `dead` is the last failed one. */
export type DeliveryResult = 'sent' | 'failed' | 'rate_limited' | 'dead';

export interface OutboxWorker {
  start(): void;
  /** Stops taking rows and waits for the deliveries under way. */
  stop(): Promise<void>;
  /** Looks for due rows now (after a commit that queued some). */
  wake(): void;
  /** Delivers every row that is due, including those that fall due while it runs briefly; for tests and the CLI. */
  drain(): Promise<void>;
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

export function createOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const { ctx, publishers, logger } = options;
  const maxAttempts = options.maxAttempts ?? 10;
  const baseDelayMs = options.baseDelayMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 15 * 60_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const deadlineMs = options.deadlineMs ?? 60_000;
  const concurrency = options.concurrency ?? 64;
  const pollMs = options.pollMs ?? 1_000;
  const random = options.random ?? Math.random;

  // A started worker follows its event loop; one that only drains (the CLI) runs at its concurrency.
  let ceiling: DeliveryCeiling = options.ceiling ?? { current: () => concurrency, stop: () => undefined };
  /** Deliveries under way, by row id. */
  const inFlight = new Map<number, { stream: string; work: Promise<void>; startedAt: number }>();
  const widths = Object.fromEntries(publishers.map((p) => [p.streamPrefix, p.streamWidth ?? 1]));
  /**
   * The latest deliveries of each rate-limited stream, oldest first. One counts
   * from its start until a window (a second, or 1/rate when slower) after it
   * ended: a request reaches its receiver somewhere between the two, so the
   * receiver never sees more than the rate in any window.
   */
  const starts = new Map<string, { endedAt: number | null }[]>();
  const confirmations: { id: number; lease: string; settle: (marked: boolean) => void; fail: (error: unknown) => void }[] = [];
  let flushing: Promise<void> | null = null;
  const readyAt = new Map<string, number>();
  let running = false;
  /** Set by `stop`: claimed rows not started yet are given back. */
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let pass: Promise<void> | null = null;
  let again = false;
  let settledAt = Number.NEGATIVE_INFINITY;

  const publisherFor = (stream: string) => publishers.find((p) => stream.startsWith(p.streamPrefix));

  /** A stream's rate limit as starts per window: `rate` a second, or one per 1/rate seconds when slower. */
  function limitOf(stream: string): { count: number; windowMs: number } | null {
    const rate = publisherFor(stream)?.streamRate;
    if (rate === undefined) return null;
    const count = Math.max(1, Math.floor(rate));
    return { count, windowMs: (count * 1000) / rate };
  }

  /** The stream's deliveries under way or ended within the window, after dropping the older ones. */
  function recent(stream: string, now: number): { endedAt: number | null }[] {
    const windowMs = limitOf(stream)?.windowMs ?? 0;
    const kept = (starts.get(stream) ?? []).filter((d) => d.endedAt === null || d.endedAt > now - windowMs);
    if (kept.length > 0) starts.set(stream, kept);
    else starts.delete(stream);
    return kept;
  }

  /** Deliveries the stream's rate limit lets start now; Infinity without one. */
  function allowance(stream: string, now: number): number {
    const limit = limitOf(stream);
    if (!limit) return Number.POSITIVE_INFINITY;
    return limit.count - recent(stream, now).length;
  }

  /** Counts a start; the returned `end` is called when the delivery is over, whatever its outcome. */
  function recordStart(stream: string, now: number): () => void {
    const limit = limitOf(stream);
    if (!limit) return () => undefined;
    const delivery = { endedAt: null as number | null };
    starts.set(stream, [...recent(stream, now), delivery]);
    return () => {
      delivery.endedAt = Date.now();
      // Full: held back until the window of the delivery that ended first among the counted ones is over.
      const counted = recent(stream, delivery.endedAt);
      const ended = counted.flatMap((d) => (d.endedAt === null ? [] : [d.endedAt])).sort((a, b) => a - b);
      if (counted.length >= limit.count && ended.length > 0) holdUntil(stream, ended[0]! + limit.windowMs);
    };
  }

  /** Holds a stream back until `at`; the next pass comes then if the timer would wake later. */
  function holdUntil(stream: string, at: number): void {
    readyAt.set(stream, Math.max(at, readyAt.get(stream) ?? 0));
    if (running && at < timerAt) {
      clearTimeout(timer);
      schedule();
    }
  }

  /** Marks a confirmed row sent along with the others confirmed meanwhile: one transaction, not one per row. */
  function confirm(entry: ClaimedEntry): Promise<boolean> {
    return new Promise((settle, fail) => {
      confirmations.push({ id: entry.id, lease: entry.lease, settle, fail });
      if (flushing) return;
      flushing = (async () => {
        await new Promise((r) => setTimeout(r, GATHER_MS));
        while (confirmations.length > 0) {
          const batch = confirmations.splice(0, 500);
          try {
            const marked = await markSentBatch(ctx, batch);
            for (const c of batch) c.settle(marked.has(c.id));
          } catch (error) {
            for (const c of batch) c.fail(error);
          }
        }
      })().finally(() => {
        flushing = null;
      });
    });
  }

  function backoff(attempt: number): number {
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  }

  async function deliverOne(entry: ClaimedEntry, publisher: Publisher): Promise<void> {
    const progress = { ...entry.progress };
    const platform = platformOfStream(entry.stream);
    const chat = (): ChatPlatform => {
      if (platform === null) throw new Error(`stream ${entry.stream} is not a chat channel: it has no chat messages`);
      return platform;
    };
    // Ends at the deadline, at the stop, or when the lease is lost (its reason a LeaseLost).
    const scope = requestScope(deadlineMs, options.stop);
    const { signal } = scope;
    const recorder: DeliveryRecorder = {
      step: async (name, value) => {
        progress[name] = value;
        if (!(await saveProgress(ctx, entry.id, entry.lease, progress))) scope.abort(new LeaseLost());
        signal.throwIfAborted();
      },
      messageOf: (channelId, subject) => chatMessageOf(ctx, chat(), channelId, subject),
      rememberMessage: (channelId, subject, messageId) => rememberChatMessage(ctx, chat(), channelId, subject, messageId),
    };
    let parsed: { value: unknown } | undefined;
    const delivery: Delivery = {
      id: entry.id,
      stream: entry.stream,
      event: entry.event,
      subscriberId: entry.subscriberId,
      // Parsed when a publisher reads it: a webhook sends the text as stored.
      get payload(): unknown {
        parsed ??= { value: JSON.parse(entry.payload) as unknown };
        return parsed.value;
      },
      body: entry.payload,
      attempts: entry.attempts,
      progress,
      idempotencyKey: idempotencyKeyOf(entry),
      signal,
    };
    // Held while it runs, however long the receiver takes: another process takes the row over only after this one is gone.
    const renewal = setInterval(
      () => {
        renewLease(ctx, entry.id, entry.lease, leaseMs).then(
          (held) => held || scope.abort(new LeaseLost()),
          (error: unknown) => logger.warn(`the lease of outbox row ${entry.id} could not be renewed`, { outboxId: entry.id, reason: String(error) }),
        );
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    const heldElsewhere = () =>
      logger.warn(`outbox row ${entry.id} (${entry.event} to ${entry.stream}) is held by another process now: this delivery marks nothing`, {
        outboxId: entry.id,
        stream: entry.stream,
      });
    let pacedMs = publisher.minIntervalMs(entry.stream);
    try {
      try {
        await untilAborted(publisher.deliver(delivery, recorder), signal, deadlineMs, options.stop);
      } catch (error) {
        await failed(error);
        return;
      }
      // A failure to record it leaves the row claimed: it is delivered again, with the same key, once the lease runs out.
      if (await confirm(entry)) options.onDelivered?.(publisher.name, 'sent');
      else heldElsewhere();
    } finally {
      clearInterval(renewal);
      scope.release();
      if (pacedMs > 0) holdUntil(entry.stream, Date.now() + pacedMs);
    }

    async function failed(error: unknown): Promise<void> {
      if (signal.reason instanceof LeaseLost) {
        heldElsewhere();
        return;
      }
      if (error instanceof StoppingError || options.stop?.aborted) {
        // Not an attempt: the row stays queued, for the next start (or another replica) at once.
        await releaseClaim(ctx, entry.id, entry.lease);
        return;
      }
      const now = ctx.clock.now().getTime();
      const failure = error instanceof DeliveryFailure ? error : null;
      // Being told to slow down is not a failed attempt.
      const countsAsAttempt = !failure?.rateLimited;
      const attempts = entry.attempts + (countsAsAttempt ? 1 : 0);
      const dead = countsAsAttempt && (attempts >= maxAttempts || failure?.permanent === true);
      const delay = failure?.retryAfterMs ?? backoff(attempts);
      // Told to slow down: the destination's other rows wait as long (its rate limit), in this process.
      if (failure?.rateLimited) pacedMs = Math.max(pacedMs, delay);
      const message = error instanceof Error ? error.message : String(error);
      if (!(await markFailed(ctx, entry.id, entry.lease, { error: message, countsAsAttempt, retryAt: now + delay, dead }))) {
        heldElsewhere();
        return;
      }
      options.onDelivered?.(publisher.name, dead ? 'dead' : countsAsAttempt ? 'failed' : 'rate_limited');
      const fields = { outboxId: entry.id, stream: entry.stream, event: entry.event, attempts, retryInMs: dead ? null : delay, reason: message };
      if (dead) logger.error(`outbox row ${entry.id} (${entry.event} to ${entry.stream}) dead after ${attempts} attempts: ${message}`, undefined, fields);
      else logger.warn(`delivery of outbox row ${entry.id} failed; tried again later`, fields);
    }
  }

  /** Rows queued while their platform was off: marked waiting, or expired after a day (first pass, then once a minute). */
  async function settle(): Promise<void> {
    if (Date.now() - settledAt < SETTLE_MS) return;
    settledAt = Date.now();
    const { waiting, expired } = await settleRowsOfPlatformsOff(ctx);
    if (waiting > 0) logger.info(`${plural(waiting, 'chat notification')} wait for a platform that is off here`, { waiting });
    if (expired > 0) logger.warn(`${plural(expired, 'chat notification')} expired: the platform was off for a day`, { expired });
  }

  /**
   * One look for due rows; starts deliveries up to the concurrency, and up to
   * the ceiling among those that started in the last second: a delivery that
   * waits on a slow receiver costs the process nothing, and is not counted.
   */
  async function runPass(): Promise<void> {
    await settle();
    const now = Date.now();
    const working = [...inFlight.values()].filter((d) => now - d.startedAt < WORKING_MS).length;
    const free = Math.min(concurrency - inFlight.size, ceiling.current() - working);
    if (free <= 0) return;
    // An ordered stream under way is busy; a wide one is held to its width by the claim itself.
    const busy = new Set([...inFlight.values()].filter((d) => (widths[publisherFor(d.stream)?.streamPrefix ?? ''] ?? 1) <= 1).map((d) => d.stream));
    for (const [stream, at] of readyAt) {
      if (at > now) busy.add(stream);
      else readyAt.delete(stream);
    }
    for (const stream of [...starts.keys()]) recent(stream, now);
    const claimed = await claimDue(ctx, {
      limit: free,
      leaseMs,
      busy,
      streamPrefixes: publishers.map((p) => p.streamPrefix),
      widths,
      allowance: (stream) => Math.floor(allowance(stream, now)),
    });
    // A start counts from when its request can leave, not from when the pass began.
    let startedAt = Date.now();
    for (const [i, entry] of claimed.entries()) {
      if (i > 0 && i % START_SLICE === 0) {
        // Each start does its own work at once (the body signed, the request made): requests that came in
        // meanwhile are answered between slices rather than wait behind a whole claim's.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (stopping) {
          for (const left of claimed.slice(i)) await releaseClaim(ctx, left.id, left.lease);
          return;
        }
        startedAt = Date.now();
      }
      const ended = recordStart(entry.stream, startedAt);
      const publisher = publisherFor(entry.stream)!;
      const work = deliverOne(entry, publisher)
        .catch((error: unknown) => logger.error(`outbox row ${entry.id} could not be recorded`, error))
        .finally(() => {
          ended();
          inFlight.delete(entry.id);
          if (running) wakeSoon();
        });
      inFlight.set(entry.id, { stream: entry.stream, work, startedAt });
    }
  }

  let soon: NodeJS.Timeout | undefined;
  /** A pass shortly, for the slots freed meanwhile together. */
  function wakeSoon(): void {
    soon ??= setTimeout(() => {
      soon = undefined;
      wake();
    }, GATHER_MS);
  }

  function wake(): void {
    if (pass) {
      again = true;
      return;
    }
    pass = runPass()
      .catch((error: unknown) => logger.error('outbox worker pass failed', error))
      .finally(() => {
        pass = null;
        if (again) {
          again = false;
          wake();
        }
      });
  }

  function schedule(): void {
    if (!running) return;
    // The next pass comes when a paced stream is ready again, or at the poll interval.
    const soonest = Math.min(Date.now() + pollMs, ...readyAt.values());
    timerAt = Math.max(Date.now() + 10, soonest);
    timer = setTimeout(
      () => {
        wake();
        schedule();
      },
      Math.max(10, soonest - Date.now()),
    );
  }

  return {
    start() {
      if (running) return;
      running = true;
      stopping = false;
      // Never below half the concurrency: a busy machine slows a drain, it does not starve it.
      if (!options.ceiling) ceiling = followEventLoop({ max: concurrency, min: Math.ceil(concurrency / 2), lateMs: 1 });
      wake();
      schedule();
    },
    async stop() {
      running = false;
      stopping = true;
      clearTimeout(timer);
      clearTimeout(soon);
      ceiling.stop();
      await pass;
      await Promise.all([...inFlight.values()].map((d) => d.work));
    },
    wake,
    async drain() {
      for (;;) {
        await runPass();
        if (inFlight.size > 0) {
          await Promise.race([...inFlight.values()].map((d) => d.work));
          continue;
        }
        // Nothing could start: finished, unless due rows wait only for their stream's pacing.
        const paced = [...readyAt].filter(([, at]) => at > Date.now());
        const waiting = await dueStreams();
        const waits = paced.filter(([stream]) => waiting.has(stream)).map(([, at]) => at - Date.now());
        if (waits.length === 0) return;
        await new Promise((r) => setTimeout(r, Math.min(...waits)));
      }
    },
  };

  /** Streams with a row due now that some publisher takes. */
  async function dueStreams(): Promise<Set<string>> {
    const now = ctx.clock.now().getTime();
    const rows = await ctx.db
      .selectFrom('outbox')
      .select('stream')
      .distinct()
      .where('state', '=', sql.lit('pending'))
      .where('next_attempt_at', '<=', now)
      .execute();
    return new Set(rows.map((r) => r.stream).filter((stream) => publisherFor(stream) !== undefined));
  }
}

/** The claim of a row was taken over by another process. */
class LeaseLost extends Error {
  constructor() {
    super('the lease is held by another process');
    this.name = 'LeaseLost';
  }
}

/**
 * The key receivers deduplicate by: the row's id and when it was queued, the
 * same on every attempt and on every replica, and not repeated by another
 * database whose ids start over.
 */
export const idempotencyKeyOf = (entry: { id: number; createdAt: Date }): string => `statusbot-${entry.id}-${entry.createdAt.getTime().toString(36)}`;

/**
 * A delivery's work, or its end when `signal` fires first: a publisher that
 * does not heed the signal (a client without one) is no longer waited for.
 */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal, deadlineMs: number, stop: AbortSignal | undefined): Promise<T> {
  work.catch(() => undefined);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () =>
      reject(
        signal.reason instanceof LeaseLost
          ? signal.reason
          : stop?.aborted
            ? new StoppingError()
            : new DeliveryFailure(`no confirmation within ${deadlineMs / 1000} s (the deadline of a delivery)`),
      );
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
