import type { IncomingMessage } from 'node:http';
import type { ClientAddress } from '../infrastructure/client-address.js';
import { createRateLimiter } from '../infrastructure/rate-limiter.js';
import { HttpProblem } from './http-errors.js';

/** The API's rate limit: per key, and per address for wrong guesses of keys and tokens. */
export interface CallerBudget {
  /** Takes one request from the caller's budget; 429 once it is spent. */
  take(caller: string): void;
  /** A wrong key or token costs from the caller's address's budget (429 once it is spent). */
  chargeWrongGuess(req: IncomingMessage): void;
}

export function createCallerBudget(rateLimitPerMinute: number, clientAddress: ClientAddress): CallerBudget {
  const limiter = createRateLimiter(rateLimitPerMinute);
  function take(caller: string): void {
    const limit = limiter.take(caller, Date.now());
    if (limit.retryAfterSeconds > 0) {
      throw new HttpProblem('rate_limited', `Rate limit of ${rateLimitPerMinute} requests per minute exceeded`, {
        'Retry-After': String(limit.retryAfterSeconds),
      });
    }
  }
  return {
    take,
    chargeWrongGuess: (req) => take(`address:${clientAddress(req)}`),
  };
}
