import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord } from '../fakes/fake-discord.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { FAST_DELIVERY, startTestServer } from '../helpers/test-server.js';
import type { TestServer, TestServerOptions } from '../helpers/test-server.js';
import { discordConfig, discordEnv } from '../helpers/discord.js';

const A = '222';
const B = '225';
const CHANNELS = `
    channels:
      - { discord: "${A}", incidents: true }
      - { discord: "${B}", incidents: true }
`;

let fake: FakeDiscord;
let database: TestDatabase;
const servers: TestServer[] = [];
beforeEach(async () => {
  fake = await startFakeDiscord();
  database = await createTestDatabase();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await fake.close();
  await database.drop();
});

async function start(delivery: TestServerOptions['delivery'] = FAST_DELIVERY): Promise<TestServer> {
  const s = await startTestServer({ config: discordConfig(CHANNELS), env: discordEnv(fake), dbPath: database.path, delivery });
  servers.push(s);
  return s;
}

async function settle(s: TestServer): Promise<void> {
  await fake.waitFor(async () => {
    const rows = await s.ctx.db.selectFrom('outbox').select('state').where('state', '!=', 'sent').execute();
    expect(rows.filter((r) => r.state === 'dead')).toEqual([]);
    return rows.length === 0;
  });
}

/** Per channel: each incident's main message and the descriptions of its replies, in order. */
function timeline(channelId: string) {
  const messages = fake.channel(channelId);
  const mains = messages.filter((m) => !m.replyTo);
  return mains.map((main) => ({
    title: main.body.embeds[0].title as string,
    replies: messages.filter((m) => m.replyTo === main.id).map((m) => m.body.embeds[0].description as string),
  }));
}

/** Two incidents with updates, interleaved. */
async function story(s: TestServer, prefix: string) {
  const one = Number((await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: `${prefix} one`, description: 'one 0' } })).body.data.id);
  const two = Number((await s.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: `${prefix} two`, description: 'two 0' } })).body.data.id);
  for (const [id, text, stage] of [
    [one, 'one a', 'identified'],
    [two, 'two a', 'identified'],
    [one, 'one b', 'monitoring'],
    [two, 'two b', 'resolved'],
    [one, 'one c', 'resolved'],
  ] as const) {
    const res = await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: text, resolution_stage: stage } });
    expect(res.status).toBe(200);
  }
  return { one, two };
}

const expected = (prefix: string, one: number, two: number) => [
  { title: `✅ #${one} ${prefix} one`, replies: ['one 0', 'one a', 'one b', 'one c'] },
  { title: `✅ #${two} ${prefix} two`, replies: ['two 0', 'two a', 'two b'] },
];

describe('delivery through a Discord outage', () => {
  it('retries 500s and 429s (honouring Retry-After) until every message arrived once per channel, in order', async () => {
    const s = await start();
    fake.failNext(4, { status: 500 });
    fake.failNext(2, { status: 429, retryAfterSeconds: 0.3 });
    fake.failNext(1, { status: 429, retryAfterSeconds: 0.2, global: true });
    fake.failNext(3, { status: 500 });
    const { one, two } = await story(s, 'Outage');
    await settle(s);

    for (const channelId of [A, B]) expect(timeline(channelId)).toEqual(expected('Outage', one, two));
    expect(fake.calls.filter((c) => c.status === 429)).toHaveLength(3);
    expect(fake.calls.filter((c) => c.status === 500)).toHaveLength(7);
    // Every 429 is followed by nothing to Discord for the time it asked for.
    for (const [i, call] of fake.calls.entries()) {
      if (call.status !== 429) continue;
      const next = fake.calls.slice(i + 1).find((c) => c.path.startsWith(call.path.split('/messages')[0]!));
      expect(next!.at - call.at).toBeGreaterThanOrEqual(call.retryAfterSeconds! * 1000 - 10);
    }
    const rows = await s.ctx.db.selectFrom('outbox').select(['attempts']).where('stream', 'like', 'discord:%').execute();
    // 500s count as attempts, 429s do not: at most the seven 500s.
    expect(rows.reduce((n, r) => n + r.attempts, 0)).toBeLessThanOrEqual(7);
  });

  it('a call Discord never answers is given up at the delivery deadline, and the message posted once on the retry', async () => {
    const s = await start({ ...FAST_DELIVERY, deadlineMs: 1_000 });
    fake.failNext(1, { status: 'silent' }, (call) => call.method === 'POST');
    const { body } = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Silent', description: 'first' } });
    // The request itself is ended (its connection closed) at the 1 s deadline, long before the REST
    // client's own 15 s timeout: not only no longer waited for.
    await fake.waitFor(() => fake.abandoned === 1);
    await settle(s);
    for (const channel of [A, B]) expect(timeline(channel)).toEqual([{ title: expect.stringContaining(`#${body.data.id} Silent`), replies: ['first'] }]);
  });

  it('a lost response (posted, but answered 500) does not post twice: the nonce brings the same message back', async () => {
    const s = await start();
    fake.failNext(1, { status: 500, afterApplying: true }, (c) => c.method === 'POST' && c.path === `/channels/${A}/messages`);
    const id = Number((await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Lost answer' } })).body.data.id);
    await settle(s);
    expect(
      fake
        .channel(A)
        .filter((m) => !m.replyTo)
        .map((m) => m.body.embeds[0].title),
    ).toEqual([`🟠 #${id} Lost answer`]);
    const posts = fake.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${A}/messages` && !c.body.message_reference);
    expect(posts.map((c) => c.status)).toEqual([500, 200]);
    expect(posts[1]!.body.nonce).toBe(posts[0]!.body.nonce);
  });

  it('a failed reply is retried without repeating the edit that already went through', async () => {
    const s = await start();
    const id = Number((await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Half done', description: 'opening' } })).body.data.id);
    await settle(s);
    fake.failNext(3, { status: 500 }, (c) => c.method === 'POST');
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'step', resolution_stage: 'identified' } });
    await settle(s);
    for (const channelId of [A, B]) {
      const [main, ...replies] = fake.channel(channelId);
      expect(main!.edits).toBe(1);
      expect(replies.map((r) => r.body.embeds[0].description)).toEqual(['opening', 'step']);
    }
  });

  it('rows pending when the server stopped are delivered after a restart on the same database, once, in order', async () => {
    const first = await start({ enabled: false });
    const { one, two } = await story(first, 'Restart');
    expect(fake.calls).toHaveLength(0);
    await servers.pop()!.stop();

    fake.failNext(3, { status: 500 });
    fake.failNext(1, { status: 429, retryAfterSeconds: 0.2 });
    const second = await start();
    await settle(second);
    for (const channelId of [A, B]) expect(timeline(channelId)).toEqual(expected('Restart', one, two));
  });

  it('a restart in the middle of a row resumes from its recorded steps', async () => {
    const s = await start();
    const id = Number((await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Crash', description: 'crash' } })).body.data.id);
    await settle(s);
    // The reply to channel A keeps failing, so the row stays pending with its edit recorded.
    fake.failNext(1000, { status: 500 }, (c) => c.method === 'POST' && c.path === `/channels/${A}/messages`);
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'before crash', resolution_stage: 'identified' } });
    await fake.waitFor(async () => {
      const row = await s.ctx.db
        .selectFrom('outbox')
        .select(['progress', 'attempts'])
        .where('stream', '=', `discord:111:${A}`)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return row && row.attempts >= 1 && row.progress?.includes('message');
    });
    await servers.pop()!.stop();
    fake.heal();

    const again = await start();
    await settle(again);
    const [main, ...replies] = fake.channel(A);
    expect(main!.edits).toBe(1);
    expect(replies.map((r) => r.body.embeds[0].description)).toEqual(['crash', 'before crash']);
  });
});
