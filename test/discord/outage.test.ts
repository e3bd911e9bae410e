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

/** What only Discord's REST API does to a delivery: a call never answered, a lost answer caught by the nonce. The rest: test/chat/outage.test.ts. */
describe('delivery through a Discord outage', () => {
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
});
