import { createRateLimiter } from '../../src/infrastructure/rate-limiter.js';

/** Requests per minute (config `chat.rate_limit`). */
export interface ChatRateLimit {
  /** Per Slack workspace or Discord guild. */
  perMinute: number;
  /** Per client address (Slack's and Discord's senders, or anyone else). */
  perAddressPerMinute: number;
}

/** Token buckets of chat requests; each answers the seconds to wait, 0 when the request may go on. */
export interface ChatLimiter {
  /** Before the signature is checked: the sender's address (see src/infrastructure/client-address.ts). */
  address(address: string): number;
  /** Once the signature is checked: the workspace (only then is its id believed). */
  workspace(id: string): number;
}

export function createChatLimiter(options: { rateLimit: ChatRateLimit; now: () => number }): ChatLimiter {
  const byAddress = createRateLimiter(options.rateLimit.perAddressPerMinute);
  const byWorkspace = createRateLimiter(options.rateLimit.perMinute);
  return {
    address: (address) => byAddress.take(address, options.now()).retryAfterSeconds,
    workspace: (id) => byWorkspace.take(id, options.now()).retryAfterSeconds,
  };
}
