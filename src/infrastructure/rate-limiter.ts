/** A token bucket per caller: `perMinute` requests, refilled continuously. */
export interface RateLimiter {
  /** Takes one token; the seconds to wait when none is left, else 0. */
  take(caller: string, nowMs: number): { retryAfterSeconds: number; remaining: number };
}

export function createRateLimiter(perMinute: number): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const ratePerMs = perMinute / 60_000;
  return {
    take(caller, nowMs) {
      let bucket = buckets.get(caller);
      if (!bucket) {
        // Bounded memory: idle callers are forgotten, which only ever refills them.
        if (buckets.size >= 100_000) buckets.clear();
        bucket = { tokens: perMinute, at: nowMs };
        buckets.set(caller, bucket);
      }
      bucket.tokens = Math.min(perMinute, bucket.tokens + (nowMs - bucket.at) * ratePerMs);
      bucket.at = nowMs;
      if (bucket.tokens < 1) {
        return { retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000)), remaining: 0 };
      }
      bucket.tokens -= 1;
      return { retryAfterSeconds: 0, remaining: Math.floor(bucket.tokens) };
    },
  };
}
