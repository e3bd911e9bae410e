import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/test-database.js';
import { runningClock } from '../../src/domain/clock.js';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { FAST_DELIVERY, T0 } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { INCIDENTS_CHANNEL, ask, startSlackServer } from '../helpers/slack.js';

const SECOND_CHANNEL = 'CSECOND';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const slackRows = (s: TestServer) =>
  s.ctx.db.selectFrom('outbox').select(['id', 'stream', 'state', 'attempts', 'progress']).where('stream', 'like', 'slack:%').orderBy('id').execute();

async function settled(s: TestServer, fake: FakeSlack) {
  await fake.waitFor(async () => (await slackRows(s)).every((r) => r.state !== 'pending'));
  expect((await slackRows(s)).filter((r) => r.state !== 'sent')).toEqual([]);
}

/** What a channel shows for an incident: its top-level messages, and the replies in the thread of each. */
function shown(fake: FakeSlack, channel: string, id: number) {
  const all = fake.messages.get(channel) ?? [];
  const tops = all.filter((m) => m.threadTs === null && m.text.includes(`incident #${id}:`));
  return tops.map((top) => ({ text: top.text, replies: all.filter((m) => m.threadTs === top.ts).map((m) => m.text) }));
}

async function incident(s: TestServer, body: Record<string, unknown>) {
  const res = await s.api('POST', '/api/v2/incidents', { body });
  expect(res.status, res.text).toBe(201);
  return Number(res.body.data.id);
}

async function patch(s: TestServer, id: number, body: Record<string, unknown>) {
  const res = await s.api('PATCH', `/api/v2/incidents/${id}`, { body });
  expect(res.status, res.text).toBe(200);
}

describe('delivery through a Slack outage', () => {
  it('after 500s and 429s every notification arrives exactly once per channel, in order per incident', async () => {
    const fake = await startFakeSlack();
    cleanup.push(() => fake.close());
    const s = await startSlackServer(fake, { delivery: FAST_DELIVERY });
    cleanup.push(() => s.stop());
    await ask(s, fake, { command: '/statusbot', text: 'subscribe incidents', channel: SECOND_CHANNEL });

    fake.failNext(4, { status: 500 });
    fake.failNext(3, { status: 429, retryAfterSeconds: 1 });
    fake.failNext(2, { status: 500 }, (c) => Boolean(c.body.thread_ts));
    const a = await incident(s, { service_id: 1001, title: 'API down', status: 'major', description: 'Errors everywhere' });
    const b = await incident(s, { service_id: 1002, title: 'Web slow', description: 'Pages take 10 s' });
    await patch(s, a, { description: 'Bad deploy', resolution_stage: 'identified' });
    await patch(s, b, { description: 'Cache warmed', resolution_stage: 'monitoring' });
    await patch(s, a, { description: 'Rolled back', resolution_stage: 'resolved' });
    await patch(s, b, { description: 'Fast again', resolution_stage: 'resolved' });
    await settled(s, fake);

    expect(fake.calls.filter((c) => c.status === 500)).toHaveLength(6);
    expect(fake.calls.filter((c) => c.status === 429)).toHaveLength(3);
    for (const channel of [INCIDENTS_CHANNEL, SECOND_CHANNEL]) {
      expect(shown(fake, channel, a)).toEqual([
        {
          text: `Resolved incident #${a}: API down (Acme API)`,
          replies: ['*Investigating* — Errors everywhere', '*Identified* — Bad deploy', '*Resolved* — Rolled back'],
        },
      ]);
      expect(shown(fake, channel, b)).toEqual([
        {
          text: `Resolved incident #${b}: Web slow (Acme Web)`,
          replies: ['*Investigating* — Pages take 10 s', '*Monitoring* — Cache warmed', '*Resolved* — Fast again'],
        },
      ]);
    }

    // After a 429 the channel is left alone for the Retry-After (1 s).
    for (const limited of fake.calls.filter((c) => c.status === 429)) {
      const next = fake.calls.find((c) => c.at >= limited.at && c !== limited && c.body.channel === limited.body.channel);
      expect(next, 'a later call to the rate-limited channel').toBeDefined();
      expect(next!.at - limited.at).toBeGreaterThanOrEqual(950);
    }
  });

  it('rows pending when the server stopped are delivered once by the next start on the same database, resuming after the last confirmed step', async () => {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const dbPath = database.path;
    const clock = runningClock(T0);
    const fake = await startFakeSlack();
    cleanup.push(() => fake.close());

    const first = await startSlackServer(fake, { delivery: FAST_DELIVERY, dbPath, clock });
    let firstRunning = true;
    cleanup.push(() => (firstRunning ? first.stop() : undefined));
    await ask(first, fake, { command: '/statusbot', text: 'subscribe incidents', channel: SECOND_CHANNEL });
    // Every thread reply fails, and the second channel gets nothing at all, while the first server runs.
    fake.failNext(100_000, { status: 500 }, (c) => Boolean(c.body.thread_ts) || c.body.channel === SECOND_CHANNEL);
    const id = await incident(first, { service_id: 1001, title: 'Disk full', description: 'Writes fail' });
    await patch(first, id, { description: 'Old logs removed', resolution_stage: 'monitoring' });

    const stream = `slack:TACME:${INCIDENTS_CHANNEL}`;
    await fake.waitFor(async () => {
      const [head] = (await slackRows(first)).filter((r) => r.stream === stream);
      return head && head.progress !== null && head.attempts >= 2;
    });
    await first.stop();
    firstRunning = false;
    const left = (await readRowsOf(dbPath)).filter((r) => r.state === 'pending');
    expect(left.map((r) => r.stream).sort()).toEqual([stream, stream, `slack:TACME:${SECOND_CHANNEL}`, `slack:TACME:${SECOND_CHANNEL}`].sort());
    expect(JSON.parse(left.find((r) => r.stream === stream)!.progress!)).toEqual({ message: expect.any(String) });
    const topLevelBefore = fake.ok('chat.postMessage').filter((c) => !c.body.thread_ts && c.body.channel === INCIDENTS_CHANNEL).length;
    expect(topLevelBefore).toBe(1);

    fake.heal();
    const second = await startSlackServer(fake, { delivery: FAST_DELIVERY, dbPath, clock });
    cleanup.push(() => second.stop());
    await settled(second, fake);

    for (const channel of [INCIDENTS_CHANNEL, SECOND_CHANNEL]) {
      expect(shown(fake, channel, id)).toEqual([
        { text: `Minor incident #${id}: Disk full (Acme API)`, replies: ['*Investigating* — Writes fail', '*Monitoring* — Old logs removed'] },
      ]);
    }
    // The message step confirmed before the stop was not repeated.
    expect(fake.ok('chat.postMessage').filter((c) => !c.body.thread_ts && c.body.channel === INCIDENTS_CHANNEL)).toHaveLength(1);
  });
});

/** The outbox of a stopped server, read from its database. */
async function readRowsOf(dbPath: string) {
  const { openDatabase } = await import('../../src/db/database.js');
  const db = openDatabase({ path: dbPath });
  try {
    return await db.selectFrom('outbox').select(['stream', 'state', 'progress']).where('stream', 'like', 'slack:%').orderBy('id').execute();
  } finally {
    await db.destroy();
  }
}
