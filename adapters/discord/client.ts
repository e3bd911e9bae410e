import { REST } from 'discord.js';
import type { ChatEnv } from '../../src/config/env.js';

export const DISCORD_API = 'https://discord.com/api';

/**
 * A REST client for the bot. `rejectOnRateLimit` turns both a 429 and a
 * bucket the headers say is empty into a RateLimitError instead of a sleep,
 * so that the outbox worker, not this process, waits out the Retry-After.
 * `retries: 0` for the same reason: the worker owns the backoff.
 */
export function createDiscordRest(env: NonNullable<ChatEnv['discord']>, options: { rejectOnRateLimit: boolean }): REST {
  return new REST({
    version: '10',
    api: env.apiUrl ?? DISCORD_API,
    retries: options.rejectOnRateLimit ? 0 : 1,
    timeout: 10_000,
    rejectOnRateLimit: options.rejectOnRateLimit ? () => true : null,
  }).setToken(env.token);
}

export function closeDiscordRest(rest: REST): void {
  rest.clearHashSweeper();
  rest.clearHandlerSweeper();
}
