import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord } from '../fakes/fake-discord.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { autocomplete, command, modalSubmit, ping } from '../fakes/discord-interactions.js';
import { discordConfig, discordEnv } from '../helpers/discord.js';
import { recordingLogger } from '../helpers/loggers.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const OTHER_GUILD = '333';

let fake: FakeDiscord;
beforeAll(async () => {
  fake = await startFakeDiscord();
});
afterAll(async () => {
  await fake?.close();
});

const start = (config = discordConfig(), logger = recordingLogger()) => startTestServer({ config, env: discordEnv(fake), logger });
const send = (s: TestServer, interaction: unknown, options: { signature?: string } = {}) =>
  fake.interact(s.url, interaction, { now: s.clock.now(), ...options });

async function incident(s: TestServer, id: number) {
  return (await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes as { resolved: boolean; updates: unknown[] };
}

describe('a replayed Discord interaction is refused (Discord never sends one twice)', () => {
  let s: TestServer;
  const logger = recordingLogger();
  beforeAll(async () => {
    s = await start(discordConfig(), logger);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('the same signed /incident resolve sent twice resolves once; the replay gets 401, and a warning is logged', async () => {
    const id = (await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Replayed resolve' } })).body.data.id as number;
    const resolve = command('incident resolve', { id, message: 'Cable replaced' });
    const first = await send(s, resolve);
    expect(first.status).toBe(200);
    expect(first.body.data.content).toMatch(/^Resolved incident \*\*#\d+\*\*/);
    const after = await incident(s, id);
    expect(after.resolved).toBe(true);

    const replay = await send(s, resolve);
    expect(replay).toEqual({ status: 401, body: { error: 'invalid request signature' } });
    expect((await incident(s, id)).updates).toHaveLength(after.updates.length);
    const warnings = logger.records.filter((r) => r.level === 'warn' && /replayed/.test(r.message));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/^discord: refused a replayed request/);
    expect(warnings[0]!.fields).toMatchObject({ path: '/discord/interactions', workspace: '111', address: '127.0.0.1' });
  });

  it('a submitted form replayed, even with its signature in capitals (also valid), opens one incident', async () => {
    const form = modalSubmit('incident:new:1001', { title: 'Submitted once', severity: ['minor'], stage: ['investigating'], description: '' });
    expect((await send(s, form)).body.data.content).toMatch(/^Opened incident/);
    const ts = String(Math.floor(s.clock.now().getTime() / 1000));
    const upper = fake.sign(ts, JSON.stringify(form)).toUpperCase();
    expect((await send(s, form, { signature: upper })).status).toBe(401);
    const rows = await s.ctx.db.selectFrom('incidents').select('id').where('title', '=', 'Submitted once').execute();
    expect(rows).toHaveLength(1);
  });

  it('PINGs and autocomplete, which change nothing, are answered every time', async () => {
    const p = ping();
    for (let i = 0; i < 2; i++) expect(await send(s, p)).toEqual({ status: 200, body: { type: 1 } });
    const suggest = autocomplete('status', { service: 'acme' }, 'service');
    for (let i = 0; i < 2; i++) expect((await send(s, suggest)).body.type).toBe(8);
  });
});

describe('what is remembered', () => {
  it('is forgotten once its signature has expired: a later request clears it, and the old one is refused by its timestamp anyway', async () => {
    const s = await start();
    try {
      const seen = () => s.ctx.db.selectFrom('seen_chat_requests').select('digest').where('platform', '=', 'discord').execute();
      const old = command('statusbot help');
      expect((await send(s, old)).status).toBe(200);
      const [first] = await seen();
      expect(first).toBeDefined();
      s.clock.advance(7 * 60_000);
      expect((await send(s, command('statusbot help'))).status).toBe(200);
      const now = await seen();
      expect(now).toHaveLength(1);
      expect(now[0]!.digest).not.toBe(first!.digest);
      const resent = await fake.interact(s.url, old, { now: s.clock.now(), timestamp: String(Math.floor(s.clock.now().getTime() / 1000) - 7 * 60) });
      expect(resent.status).toBe(401);
    } finally {
      await s.stop();
    }
  });
});

describe('Discord interactions are rate limited per guild and per address', () => {
  const slowDown = {
    type: 4,
    data: { flags: 64, content: expect.stringMatching(/^Too many requests at once; nothing was done\. Please try again in \d+ seconds?\.$/) },
  };

  it('a guild over chat.rate_limit.per_minute gets an ephemeral "slow down", nothing runs; another guild is not limited; autocomplete does not count', async () => {
    const s = await start(`${discordConfig()}chat: { rate_limit: { per_minute: 3 } }\n`);
    try {
      for (let i = 0; i < 5; i++) expect((await send(s, autocomplete('status', { service: 'acme' }, 'service'))).body.type).toBe(8);
      for (let i = 0; i < 3; i++) expect((await send(s, command('statusbot help'))).body.data.content).toContain('/incident new');
      const limited = await send(s, modalSubmit('incident:new:1001', { title: 'Too many', severity: ['minor'], stage: ['investigating'], description: '' }));
      expect(limited).toMatchObject({ status: 200, body: slowDown });
      expect(await s.ctx.db.selectFrom('incidents').select('id').where('title', '=', 'Too many').execute()).toEqual([]);
      expect((await send(s, command('statusbot help', {}, { guild: OTHER_GUILD }))).body.data.content).toContain('/incident new');
      // The budget refills with time.
      s.clock.advance(60_000);
      expect((await send(s, command('statusbot help'))).body.data.content).toContain('/incident new');
    } finally {
      await s.stop();
    }
  });

  it('an address over chat.rate_limit.per_address_per_minute is limited whatever the guild, unsigned requests counting too', async () => {
    const s = await start(`${discordConfig()}chat: { rate_limit: { per_address_per_minute: 3 } }\n`);
    try {
      expect((await send(s, command('statusbot help'), { signature: 'ab'.repeat(64) })).status).toBe(401);
      expect((await send(s, command('statusbot help'))).status).toBe(200);
      expect((await send(s, command('statusbot help', {}, { guild: OTHER_GUILD }))).status).toBe(200);
      expect(await send(s, command('statusbot help', {}, { guild: OTHER_GUILD }))).toMatchObject({ status: 200, body: slowDown });
    } finally {
      await s.stop();
    }
  });
});
