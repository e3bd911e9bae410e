import { platformOfStream } from '../domain/model/channel.js';
import type { ChatPlatform } from '../domain/model/channel.js';
import type { DomainContext } from '../domain/context.js';
import type { Logger } from '../infrastructure/logger.js';
import { StoppingError, requestScope } from '../infrastructure/outbound.js';
import { chatMessageOf, markFailed, releaseClaim, rememberChatMessage, renewLease, saveProgress } from './outbox-queue.js';
import type { ClaimedEntry } from './outbox-queue.js';
import { DeliveryFailure } from './publisher.js';
import type { Delivery, DeliveryRecorder, Publisher } from './publisher.js';

/** How an attempt ended: `rate_limited` does not count as an attempt, `dead` is the last failed one. */
export type DeliveryResult = 'sent' | 'failed' | 'rate_limited' | 'dead';

/** What one attempt at a claimed row runs with: the worker's settings, and its ways to mark a row sent and to pace a stream. */
export interface AttemptSettings {
  ctx: DomainContext;
  logger: Logger;
  maxAttempts: number;
  leaseMs: number;
  deadlineMs: number;
  stop?: AbortSignal | undefined;
  onDelivered?: ((platform: string, result: DeliveryResult) => void) | undefined;
  /** The wait before the next try after `attempt` failed ones. */
  backoff(attempt: number): number;
  /** Marks a confirmed row sent (with others confirmed meanwhile); false when another process holds it now. */
  confirm(entry: ClaimedEntry): Promise<boolean>;
  /** Holds a stream back until `at`. */
  holdUntil(stream: string, at: number): void;
}

/** One attempt under way: its row, its publisher, and the scope that ends it. */
interface Attempt {
  settings: AttemptSettings;
  entry: ClaimedEntry;
  publisher: Publisher;
  /** Ends at the deadline, at the stop, or when the lease is lost (its reason a LeaseLost). */
  scope: ReturnType<typeof requestScope>;
  /** How long the stream waits after this delivery. */
  pacedMs: number;
}

/**
 * Delivers one claimed row through its publisher, holding its lease while it
 * runs, and marks it sent, or failed (retried later, or dead).
 */
export async function deliverOne(settings: AttemptSettings, entry: ClaimedEntry, publisher: Publisher): Promise<void> {
  const scope = requestScope(settings.deadlineMs, settings.stop);
  const attempt: Attempt = { settings, entry, publisher, scope, pacedMs: publisher.minIntervalMs(entry.stream) };
  const progress = { ...entry.progress };
  const delivery = deliveryOf(entry, progress, scope.signal);
  const renewal = renewLeaseWhileRunning(attempt);
  try {
    try {
      await untilAborted(publisher.deliver(delivery, recorderOf(attempt, progress)), scope.signal, settings.deadlineMs, settings.stop);
    } catch (error) {
      await failed(attempt, error);
      return;
    }
    // A failure to record it leaves the row claimed: it is delivered again, with the same key, once the lease runs out.
    if (await settings.confirm(entry)) settings.onDelivered?.(publisher.name, 'sent');
    else heldElsewhere(attempt);
  } finally {
    clearInterval(renewal);
    scope.release();
    if (attempt.pacedMs > 0) settings.holdUntil(entry.stream, Date.now() + attempt.pacedMs);
  }
}

/** The row as its publisher sees it. */
function deliveryOf(entry: ClaimedEntry, progress: Record<string, string>, signal: AbortSignal): Delivery {
  let parsed: { value: unknown } | undefined;
  return {
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
}

/** Steps recorded on the row under its lease; a lost lease ends the delivery. */
function recorderOf(attempt: Attempt, progress: Record<string, string>): DeliveryRecorder {
  const { settings, entry, scope } = attempt;
  const { ctx } = settings;
  const platform = platformOfStream(entry.stream);
  const chat = (): ChatPlatform => {
    if (platform === null) throw new Error(`stream ${entry.stream} is not a chat channel: it has no chat messages`);
    return platform;
  };
  return {
    step: async (name, value) => {
      progress[name] = value;
      if (!(await saveProgress(ctx, entry.id, entry.lease, progress))) scope.abort(new LeaseLost());
      scope.signal.throwIfAborted();
    },
    messageOf: (channelId, subject) => chatMessageOf(ctx, chat(), channelId, subject),
    rememberMessage: (channelId, subject, messageId) => rememberChatMessage(ctx, chat(), channelId, subject, messageId),
  };
}

/** Held while it runs, however long the receiver takes: another process takes the row over only after this one is gone. */
function renewLeaseWhileRunning(attempt: Attempt): NodeJS.Timeout {
  const { settings, entry, scope } = attempt;
  return setInterval(
    () => {
      renewLease(settings.ctx, entry.id, entry.lease, settings.leaseMs).then(
        (held) => held || scope.abort(new LeaseLost()),
        (error: unknown) => settings.logger.warn(`the lease of outbox row ${entry.id} could not be renewed`, { outboxId: entry.id, reason: String(error) }),
      );
    },
    Math.max(10, Math.floor(settings.leaseMs / 3)),
  );
}

function heldElsewhere({ settings, entry }: Attempt): void {
  settings.logger.warn(`outbox row ${entry.id} (${entry.event} to ${entry.stream}) is held by another process now: this delivery marks nothing`, {
    outboxId: entry.id,
    stream: entry.stream,
  });
}

/** A failed attempt: given back at a stop, retried later (a rate limit is not an attempt), or dead. */
async function failed(attempt: Attempt, error: unknown): Promise<void> {
  const { settings, entry, publisher, scope } = attempt;
  const { ctx, logger } = settings;
  if (scope.signal.reason instanceof LeaseLost) {
    heldElsewhere(attempt);
    return;
  }
  if (error instanceof StoppingError || settings.stop?.aborted) {
    // Not an attempt: the row stays queued, for the next start (or another replica) at once.
    await releaseClaim(ctx, entry.id, entry.lease);
    return;
  }
  const now = ctx.clock.now().getTime();
  const failure = error instanceof DeliveryFailure ? error : null;
  // Being told to slow down is not a failed attempt.
  const countsAsAttempt = !failure?.rateLimited;
  const attempts = entry.attempts + (countsAsAttempt ? 1 : 0);
  const dead = countsAsAttempt && (attempts >= settings.maxAttempts || failure?.permanent === true);
  const delay = failure?.retryAfterMs ?? settings.backoff(attempts);
  // Told to slow down: the destination's other rows wait as long (its rate limit), in this process.
  if (failure?.rateLimited) attempt.pacedMs = Math.max(attempt.pacedMs, delay);
  const message = error instanceof Error ? error.message : String(error);
  if (!(await markFailed(ctx, entry.id, entry.lease, { error: message, countsAsAttempt, retryAt: now + delay, dead }))) {
    heldElsewhere(attempt);
    return;
  }
  settings.onDelivered?.(publisher.name, dead ? 'dead' : countsAsAttempt ? 'failed' : 'rate_limited');
  const fields = { outboxId: entry.id, stream: entry.stream, event: entry.event, attempts, retryInMs: dead ? null : delay, reason: message };
  if (dead) logger.error(`outbox row ${entry.id} (${entry.event} to ${entry.stream}) dead after ${attempts} attempts: ${message}`, undefined, fields);
  else logger.warn(`delivery of outbox row ${entry.id} failed; tried again later`, fields);
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
