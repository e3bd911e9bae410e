import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord } from '../fakes/fake-discord.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { startDiscordServer } from '../helpers/discord.js';
import { recordingLogger } from '../helpers/loggers.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

let fake: FakeDiscord | undefined;
let s: TestServer | undefined;
afterEach(async () => {
  await s?.stop();
  await fake?.close();
  s = undefined;
  fake = undefined;
});

describe('a DISCORD_TOKEN that Discord refuses', () => {
  it('is one error line naming DISCORD_TOKEN and what to check, without a stack, and the server serves on', async () => {
    fake = await startFakeDiscord();
    // Discord answers 401 for a token that is not a valid bot token, at the first call of a login.
    fake.failNext(1, { status: 401 }, (call) => call.method === 'GET' && call.path === '/gateway/bot');
    const logger = recordingLogger();
    s = await startDiscordServer(fake, { logger, env: { DISCORD_GATEWAY: 'on', DISCORD_PUBLIC_KEY: '' } });
    const refused = await waitUntil(() => logger.records.find((r) => r.level === 'error'), { what: 'the login error' });
    expect(refused.message).toBe(
      `discord: the gateway login failed: Discord refused DISCORD_TOKEN (401 Unauthorized at ${fake.apiUrl}); check DISCORD_TOKEN: the bot's token from the Developer Portal (Bot, Reset Token), without "Bot " before it, and DISCORD_API_URL; interactions arrive over HTTP only`,
    );
    // No error object: nothing for the log to print a stack from.
    expect(refused.error).toBeUndefined();
    expect(logger.records.filter((r) => r.level === 'error')).toHaveLength(1);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });
});
