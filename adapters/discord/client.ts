import { DefaultRestOptions, DiscordAPIError, HTTPError, REST } from 'discord.js';
import type { ResponseLike } from 'discord.js';
import type { ChatEnv } from '../../src/config/env.js';
import { describeNetworkError, isNetworkError } from '../../src/infrastructure/outbound.js';

export const DISCORD_API = 'https://discord.com/api';

type DiscordRequestInit = Parameters<typeof DefaultRestOptions.makeRequest>[1];

/**
 * A REST client for the bot. `rejectOnRateLimit` turns both a 429 and a
 * bucket the headers say is empty into a RateLimitError instead of a sleep,
 * so that the outbox worker, not this process, waits out the Retry-After.
 * `retries: 0` for the same reason: the worker owns the backoff.
 */
export function createDiscordRest(env: NonNullable<ChatEnv['discord']>, options: { rejectOnRateLimit: boolean }): REST {
  return new REST({
    makeRequest: withEncodedForms,
    version: '10',
    api: env.apiUrl ?? DISCORD_API,
    retries: options.rejectOnRateLimit ? 0 : 1,
    timeout: 10_000,
    rejectOnRateLimit: options.rejectOnRateLimit ? () => true : null,
  }).setToken(env.token);
}

/**
 * Discord's default request, with a file's multipart body made into bytes
 * first. The REST client builds it as the runtime's FormData and hands it to
 * its copy of undici, whose request goes out through the process's shared
 * dispatcher: when statusbot's own undici was loaded first, that dispatcher
 * is statusbot's, which knows only its own FormData and failed every file
 * ("action is not a function"). The runtime's Response encodes its own
 * FormData, boundary and all.
 */
async function withEncodedForms(url: string, init: DiscordRequestInit): Promise<ResponseLike> {
  if (!(init.body instanceof FormData)) return DefaultRestOptions.makeRequest(url, init);
  const encoded = new Response(init.body);
  const headers = { ...(init.headers as Record<string, string>), 'content-type': encoded.headers.get('content-type')! };
  return DefaultRestOptions.makeRequest(url, { ...init, headers, body: Buffer.from(await encoded.arrayBuffer()) });
}

export function closeDiscordRest(rest: REST): void {
  rest.clearHashSweeper();
  rest.clearHandlerSweeper();
}

/** Why a call to Discord's API failed, in one line with the way out; null for what nobody foresaw (a bug keeps its stack). */
export function describeDiscordFailure(error: unknown, env: NonNullable<ChatEnv['discord']>): string | null {
  const api = env.apiUrl ?? DISCORD_API;
  if (isNetworkError(error)) return `cannot reach the Discord API at ${api} (${describeNetworkError(error, 10_000)}); check the network, or DISCORD_API_URL`;
  if (error instanceof DiscordAPIError || error instanceof HTTPError) {
    const hint =
      error.status === 401 ? '; check DISCORD_TOKEN' : error.status === 403 || error.status === 404 ? '; check DISCORD_APPLICATION_ID (and --guild)' : '';
    return `the Discord API at ${api} refused: HTTP ${error.status} ${error.message}${hint}`;
  }
  return null;
}
