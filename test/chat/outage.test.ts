import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { runningClock } from '../../src/domain/clock.js';
import type { ChatHarness, HarnessOptions } from '../helpers/chat.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { FAST_DELIVERY, T0 } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { ANNOUNCEMENT_PLATFORMS } from './announcement-platforms.js';
import type { AnnouncementDriver, Named } from './announcement-platforms.js';

/** Delivery through a platform's outage and across restarts, the same scenarios on every platform. */
describe.each(ANNOUNCEMENT_PLATFORMS)('$platform', (row) => {
  const { platform } = row;
  let database: TestDatabase | null = null;
  let d: AnnouncementDriver;
  let h: ChatHarness | null = null;
  afterEach(async () => {
    await h?.stop();
    h = null;
    await database?.drop();
    database = null;
  });

  /**
   * A server on a database that outlives it, with a channel following Acme's incidents from the config and
   * another subscribed from chat.
   */
  async function begin(delivery: HarnessOptions['delivery'] = FAST_DELIVERY): Promise<ChatHarness> {
    database = await createTestDatabase();
    d = await row.start({ delivery, dbPath: database.path, clock: runningClock(T0), channels: [{ channel: 'first', incidents: true }] });
    h = d.h;
    await h.ask({ verb: 'subscribe', target: 'incidents' }, { channel: 'second' });
    return h;
  }
  const streamOf = (h: ChatHarness, channel: string) => `${platform}:${h.workspaceId('acme')}:${h.channelId(channel)}`;

  async function incident(h: ChatHarness, body: Record<string, unknown>) {
    const res = await h.s.api('POST', '/api/v2/incidents', { body });
    expect(res.status, res.text).toBe(201);
    return Number(res.body.data.id);
  }
  async function patch(h: ChatHarness, id: number, body: Record<string, unknown>) {
    const res = await h.s.api('PATCH', `/api/v2/incidents/${id}`, { body });
    expect(res.status, res.text).toBe(200);
  }

  /** What a channel shows: each incident's message, with the replies under it. */
  const timeline = (h: ChatHarness, channel: string) => h.shown(channel).map((m) => ({ headline: m.headline, replies: d.replies(h.channelId(channel), m.id) }));
  /** What a channel should show of an incident: its message, and a reply per update as [stage, text]. */
  const shows = (i: Named, updates: [string, string][]) => ({
    headline: row.headline(i),
    replies: updates.map(([stage, text]) => row.reply(stage, i, text)),
  });

  /** Two incidents with updates, interleaved. */
  async function story(h: ChatHarness, prefix: string) {
    const one = await incident(h, { service_id: 1001, title: `${prefix} one`, description: 'one 0' });
    const two = await incident(h, { service_id: 1002, title: `${prefix} two`, description: 'two 0' });
    for (const [id, text, stage] of [
      [one, 'one a', 'identified'],
      [two, 'two a', 'identified'],
      [one, 'one b', 'monitoring'],
      [two, 'two b', 'resolved'],
      [one, 'one c', 'resolved'],
    ] as const) {
      await patch(h, id, { description: text, resolution_stage: stage });
    }
    return [
      shows({ state: 'resolved', id: one, title: `${prefix} one`, service: 'Acme API' }, [
        ['Investigating', 'one 0'],
        ['Identified', 'one a'],
        ['Monitoring', 'one b'],
        ['Resolved', 'one c'],
      ]),
      shows({ state: 'resolved', id: two, title: `${prefix} two`, service: 'Acme Web' }, [
        ['Investigating', 'two 0'],
        ['Identified', 'two a'],
        ['Resolved', 'two b'],
      ]),
    ];
  }

  it('after 500s and 429s every notification arrives exactly once per channel, in order per incident', async () => {
    const h = await begin();
    for (const [count, failure, only] of row.storm) h.failNext(count, failure, only === 'replies' ? (c) => c.step === 'reply' : undefined);
    const a = await incident(h, { service_id: 1001, title: 'API down', status: 'major', description: 'Errors everywhere' });
    const b = await incident(h, { service_id: 1002, title: 'Web slow', description: 'Pages take 10 s' });
    await patch(h, a, { description: 'Bad deploy', resolution_stage: 'identified' });
    await patch(h, b, { description: 'Cache warmed', resolution_stage: 'monitoring' });
    await patch(h, a, { description: 'Rolled back', resolution_stage: 'resolved' });
    await patch(h, b, { description: 'Fast again', resolution_stage: 'resolved' });
    await h.settle();

    const calls = h.calls();
    expect(calls.filter((c) => c.status === 500)).toHaveLength(row.stormed[500]);
    expect(calls.filter((c) => c.status === 429)).toHaveLength(row.stormed[429]);
    for (const channel of ['first', 'second']) {
      expect(timeline(h, channel)).toEqual([
        shows({ state: 'resolved', id: a, title: 'API down', service: 'Acme API' }, [
          ['Investigating', 'Errors everywhere'],
          ['Identified', 'Bad deploy'],
          ['Resolved', 'Rolled back'],
        ]),
        shows({ state: 'resolved', id: b, title: 'Web slow', service: 'Acme Web' }, [
          ['Investigating', 'Pages take 10 s'],
          ['Monitoring', 'Cache warmed'],
          ['Resolved', 'Fast again'],
        ]),
      ]);
    }

    // After a 429 the channel is left alone for the Retry-After.
    for (const [i, limited] of calls.entries()) {
      if (limited.status !== 429) continue;
      const next = calls.slice(i + 1).find((c) => c.channel === limited.channel);
      expect(next, 'a later call to the rate-limited channel').toBeDefined();
      expect(next!.at - limited.at).toBeGreaterThanOrEqual(limited.retryAfterSeconds! * 1000 - row.early);
    }
    const rows = await h.s.ctx.db.selectFrom('outbox').select(['attempts']).where('stream', 'like', `${platform}:%`).execute();
    // 500s count as attempts, 429s do not: at most the 500s.
    expect(rows.reduce((n, r) => n + r.attempts, 0)).toBeLessThanOrEqual(row.stormed[500]);
  });

  it('a failed reply is retried without repeating the edit that already went through', async () => {
    const h = await begin();
    const id = await incident(h, { service_id: 1001, title: 'Half done', description: 'opening' });
    await h.settle();
    h.failNext(3, { status: 500 }, (c) => c.step === 'reply');
    await patch(h, id, { description: 'step', resolution_stage: 'identified' });
    await h.settle();
    for (const channel of ['first', 'second']) {
      const [main, ...others] = h.shown(channel);
      expect(others).toEqual([]);
      expect(main!.edits).toBe(1);
      expect(timeline(h, channel)).toEqual([
        shows({ state: 'minor', id, title: 'Half done', service: 'Acme API' }, [
          ['Investigating', 'opening'],
          ['Identified', 'step'],
        ]),
      ]);
    }
  });

  it('rows pending when the server stopped are delivered after a restart on the same database, once, in order', async () => {
    const h = await begin({ enabled: false });
    const before = h.calls().length;
    const expected = await story(h, 'Restart');
    // The answer to the subscription aside, the platform heard nothing.
    expect(h.calls()).toHaveLength(before);
    await h.restart({
      delivery: FAST_DELIVERY,
      meanwhile: async () => {
        for (const [count, failure] of row.blip) h.failNext(count, failure, (c) => c.channel !== null);
      },
    });
    await h.settle();
    for (const channel of ['first', 'second']) expect(timeline(h, channel)).toEqual(expected);
  });

  it('rows pending when the server stopped are delivered once by the next start, resuming after the last confirmed step', async () => {
    const h = await begin();
    const first = h.channelId('first');
    // Every reply fails, and the second channel gets nothing at all, while the first server runs.
    h.failNext(100_000, { status: 500 }, (c) => c.step === 'reply' || c.channel === h.channelId('second'));
    const id = await incident(h, { service_id: 1001, title: 'Disk full', description: 'Writes fail' });
    await patch(h, id, { description: 'Old logs removed', resolution_stage: 'monitoring' });

    const stream = streamOf(h, 'first');
    const outbox = () =>
      h.s.ctx.db.selectFrom('outbox').select(['stream', 'state', 'attempts', 'progress']).where('stream', 'like', `${platform}:%`).orderBy('id').execute();
    await waitUntil(
      async () => {
        const [head] = (await outbox()).filter((r) => r.stream === stream);
        return head && head.progress !== null && head.attempts >= 2;
      },
      { what: 'the first row retried after its message' },
    );
    let left: { stream: string; state: string; progress: string | null }[] = [];
    let postedBefore = 0;
    await h.restart({
      meanwhile: async () => {
        left = (await rowsOf(h.s.dbPath, platform)).filter((r) => r.state === 'pending');
        postedBefore = h.sent(first).filter((s) => s.step === 'message').length;
        h.heal();
      },
    });
    const second = streamOf(h, 'second');
    expect(left.map((r) => r.stream).sort()).toEqual([stream, stream, second, second].sort());
    expect(JSON.parse(left.find((r) => r.stream === stream)!.progress!)).toEqual({ message: expect.any(String) });
    expect(postedBefore).toBe(1);

    await h.settle();
    for (const channel of ['first', 'second']) {
      expect(timeline(h, channel)).toEqual([
        shows({ state: 'minor', id, title: 'Disk full', service: 'Acme API' }, [
          ['Investigating', 'Writes fail'],
          ['Monitoring', 'Old logs removed'],
        ]),
      ]);
    }
    // The message step confirmed before the stop was not repeated.
    expect(h.sent(first).filter((s) => s.step === 'message')).toHaveLength(1);
  });

  it('a restart in the middle of a row resumes from its recorded steps', async () => {
    const h = await begin();
    const first = h.channelId('first');
    const id = await incident(h, { service_id: 1001, title: 'Crash', description: 'crash' });
    await h.settle();
    // The reply to the first channel keeps failing, so the row stays pending with its edit recorded.
    h.failNext(1000, { status: 500 }, (c) => c.channel === first && (c.step === 'message' || c.step === 'reply'));
    await patch(h, id, { description: 'before crash', resolution_stage: 'identified' });
    const stream = streamOf(h, 'first');
    await waitUntil(
      async () => {
        const row = await h.s.ctx.db
          .selectFrom('outbox')
          .select(['progress', 'attempts'])
          .where('stream', '=', stream)
          .where('state', '=', 'pending')
          .executeTakeFirst();
        return row && row.attempts >= 1 && row.progress?.includes('message');
      },
      { what: 'the row pending with its edit recorded' },
    );
    await h.restart({ meanwhile: async () => h.heal() });
    await h.settle();
    const [main, ...others] = h.shown('first');
    expect(others).toEqual([]);
    expect(main!.edits).toBe(1);
    expect(timeline(h, 'first')).toEqual([
      shows({ state: 'minor', id, title: 'Crash', service: 'Acme API' }, [
        ['Investigating', 'crash'],
        ['Identified', 'before crash'],
      ]),
    ]);
  });
});

/** The outbox of a stopped server, read from its database. */
async function rowsOf(dbPath: string, platform: string) {
  const db = openDatabase({ path: dbPath });
  try {
    return await db.selectFrom('outbox').select(['stream', 'state', 'progress']).where('stream', 'like', `${platform}:%`).orderBy('id').execute();
  } finally {
    await db.destroy();
  }
}
