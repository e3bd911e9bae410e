/**
 * When each stream of the outbox may have its next delivery: held back for a
 * while (a platform's pace, a Retry-After), and held to its publisher's rate.
 */
export interface StreamPacing {
  /**
   * The latest deliveries of each rate-limited stream, oldest first. One counts
   * from its start until a window (a second, or 1/rate when slower) after it
   * ended: a request reaches its receiver somewhere between the two, so the
   * receiver never sees more than the rate in any window.
   */
  starts: Map<string, { endedAt: number | null }[]>;
  /** Streams held back, until when. */
  readyAt: Map<string, number>;
  /** A stream's deliveries started per second, at most (its publisher's `streamRate`); undefined: no limit. */
  rateOf: (stream: string) => number | undefined;
}

export const createStreamPacing = (rateOf: StreamPacing['rateOf']): StreamPacing => ({ starts: new Map(), readyAt: new Map(), rateOf });

/** A stream's rate limit as starts per window: `rate` a second, or one per 1/rate seconds when slower. */
function limitOf(pacing: StreamPacing, stream: string): { count: number; windowMs: number } | null {
  const rate = pacing.rateOf(stream);
  if (rate === undefined) return null;
  const count = Math.max(1, Math.floor(rate));
  return { count, windowMs: (count * 1000) / rate };
}

/** The stream's deliveries under way or ended within the window, after dropping the older ones. */
function recent(pacing: StreamPacing, stream: string, now: number): { endedAt: number | null }[] {
  const windowMs = limitOf(pacing, stream)?.windowMs ?? 0;
  const kept = (pacing.starts.get(stream) ?? []).filter((d) => d.endedAt === null || d.endedAt > now - windowMs);
  if (kept.length > 0) pacing.starts.set(stream, kept);
  else pacing.starts.delete(stream);
  return kept;
}

/** Drops, for every stream, the deliveries that no longer count. */
export function forgetEnded(pacing: StreamPacing, now: number): void {
  for (const stream of [...pacing.starts.keys()]) recent(pacing, stream, now);
}

/** Deliveries the stream's rate limit lets start now; Infinity without one. */
export function allowance(pacing: StreamPacing, stream: string, now: number): number {
  const limit = limitOf(pacing, stream);
  if (!limit) return Number.POSITIVE_INFINITY;
  return limit.count - recent(pacing, stream, now).length;
}

/**
 * Counts a start; the returned `end` is called when the delivery is over,
 * whatever its outcome. A stream full then is held back (by `hold`) until the
 * window of the delivery that ended first among the counted ones is over.
 */
export function recordStart(pacing: StreamPacing, stream: string, now: number, hold: (stream: string, at: number) => void): () => void {
  const limit = limitOf(pacing, stream);
  if (!limit) return () => undefined;
  const delivery = { endedAt: null as number | null };
  pacing.starts.set(stream, [...recent(pacing, stream, now), delivery]);
  return () => {
    delivery.endedAt = Date.now();
    const counted = recent(pacing, stream, delivery.endedAt);
    const ended = counted.flatMap((d) => (d.endedAt === null ? [] : [d.endedAt])).sort((a, b) => a - b);
    if (counted.length >= limit.count && ended.length > 0) hold(stream, ended[0]! + limit.windowMs);
  };
}

/** Holds a stream back until `at` (or later, when it is held longer already). */
export function holdUntil(pacing: StreamPacing, stream: string, at: number): void {
  pacing.readyAt.set(stream, Math.max(at, pacing.readyAt.get(stream) ?? 0));
}
