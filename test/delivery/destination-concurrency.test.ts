import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import type { DomainContext } from '../../src/domain/context.js';
import { claimDue, markSentBatch } from '../../src/delivery/outbox-queue.js';
import { createOutboxWorker } from '../../src/delivery/outbox-worker.js';
import type { OutboxWorker } from '../../src/delivery/outbox-worker.js';
import { DEFAULT_DESTINATION_LIMITS } from '../../src/config/destination-limits.js';
import type { Delivery, Publisher } from '../../src/delivery/publisher.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';
import { startFakeWebhook } from '../fakes/fake-webhook.js';
import type { FakeWebhook } from '../fakes/fake-webhook.js';
import { acmeConfig, startTestServer, webhookEntry } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const FAST = { enabled: true, baseDelayMs: 10, maxDelayMs: 40, pollMs: 10 } as const;

const config = (hooks: string[], outbox = '') =>
  acmeConfig({ top: `rate_limit: { per_minute: 100000 }\n${outbox}`, subscribers: hooks.map((hook) => webhookEntry(hook)) });

const servers: TestServer[] = [];
const hooks: FakeWebhook[] = [];
const workers: OutboxWorker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
  for (const s of servers.splice(0)) await s.stop();
  for (const h of hooks.splice(0)) await h.close();
});

async function hook(): Promise<FakeWebhook> {
  const h = await startFakeWebhook();
  hooks.push(h);
  return h;
}

async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer(options);
  servers.push(s);
  return s;
}

async function openIncidents(s: TestServer, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: `Incident ${i}` } });
    expect(response.status).toBe(201);
  }
}

const sentCount = async (s: TestServer) =>
  Number(
    (
      await s.ctx.db
        .selectFrom('outbox')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('state', '=', 'sent')
        .executeTakeFirstOrThrow()
    ).n,
  );

async function queueRows(s: TestServer, streams: string[]): Promise<void> {
  const { id: companyId } = await s.ctx.db.selectFrom('companies').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
  const now = s.clock.now().getTime();
  await s.ctx.db
    .insertInto('outbox')
    .values(
      streams.map((stream, i) => ({
        company_id: companyId,
        stream,
        event: 'incident.updated',
        payload: JSON.stringify({ n: i }),
        state: 'pending' as const,
        next_attempt_at: now - 1_000,
        created_at: now - 1_000,
      })),
    )
    .execute();
}

describe('deliveries to one destination at once', () => {
  it(`sends at most ${DEFAULT_DESTINATION_LIMITS.concurrency} webhooks at once to one URL, from two servers together, and each once`, async () => {
    const h = await hook();
    h.trickle(300);
    const a = await server({ config: config([`${h.url}/hooks/a`]), delivery: FAST });
    // A second server on the same database: the bound holds for both together.
    await server({ config: config([`${h.url}/hooks/a`]), dbPath: a.dbPath, delivery: FAST });
    await openIncidents(a, 24);
    await waitUntil(async () => (await sentCount(a)) === 24, { what: 'all 24 webhooks sent' });
    expect(h.mostAtOnce).toBeGreaterThan(1);
    expect(h.mostAtOnce).toBeLessThanOrEqual(DEFAULT_DESTINATION_LIMITS.concurrency);
    const keys = h.received.map((r) => r.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(24);
    expect(keys).toHaveLength(24);
  });

  it('a receiver that never answers holds back no other: the other subscriber gets all of its webhooks', async () => {
    const slow = await hook();
    slow.trickle(Number.POSITIVE_INFINITY);
    const fast = await hook();
    const s = await server({ config: config([`${slow.url}/hooks/slow`, `${fast.url}/hooks/fast`]), delivery: FAST });
    await openIncidents(s, 20);
    // Confirmed and marked sent, while the other receiver still holds its first webhooks.
    await waitUntil(async () => fast.received.length === 20 && (await sentCount(s)) === 20, {
      what: 'the 20 webhooks of the answering receiver sent',
    });
    expect(slow.received.length).toBeLessThanOrEqual(DEFAULT_DESTINATION_LIMITS.concurrency);
    expect(slow.mostAtOnce).toBeLessThanOrEqual(DEFAULT_DESTINATION_LIMITS.concurrency);
  });
});

describe("a destination's limits from the config", () => {
  it('outbox.per_destination.concurrency bounds the webhooks under way at once to one URL', async () => {
    const h = await hook();
    h.trickle(300);
    const s = await server({ config: config([`${h.url}/hooks/a`], 'outbox: { per_destination: { concurrency: 2 } }'), delivery: FAST });
    await openIncidents(s, 10);
    await waitUntil(async () => (await sentCount(s)) === 10, { what: 'all 10 webhooks sent' });
    expect(h.mostAtOnce).toBe(2);
  });

  it('outbox.per_destination.per_second spaces the starts to each URL, and one limited URL holds back no other', async () => {
    const a = await hook();
    const b = await hook();
    const s = await server({
      config: config([`${a.url}/hooks/a`, `${b.url}/hooks/b`], 'outbox: { per_destination: { per_second: 4 } }'),
      delivery: FAST,
    });
    await openIncidents(s, 12);
    await waitUntil(async () => (await sentCount(s)) === 24, { what: 'all 24 webhooks sent' });
    for (const h of [a, b]) {
      const times = h.received.map((r) => r.at);
      // Never more than four in a second: the 12th two seconds after the first at the soonest.
      for (let i = 4; i < times.length; i++) expect(times[i]! - times[i - 4]!).toBeGreaterThanOrEqual(800);
      expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(1_800);
    }
    // Side by side: each URL got its first webhooks before the other got its last.
    expect(b.received[0]!.at).toBeLessThan(a.received.at(-1)!.at);
    expect(a.received[0]!.at).toBeLessThan(b.received.at(-1)!.at);
  });
});

/** A chat platform that records what reached each channel, in order, and how many were under way at once. */
function fakeChat(): Publisher & { posted: string[]; mostAtOnce: number } {
  let open = 0;
  const fake = {
    name: 'slack',
    streamPrefix: 'slack:',
    minIntervalMs: () => 0,
    posted: [] as string[],
    mostAtOnce: 0,
    async deliver(delivery: Delivery) {
      open++;
      fake.mostAtOnce = Math.max(fake.mostAtOnce, open);
      await new Promise((r) => setTimeout(r, 5));
      fake.posted.push(`${delivery.stream} ${(delivery.payload as { n: number }).n}`);
      open--;
    },
  };
  return fake;
}

describe('chat streams', () => {
  it("keep each channel's messages in the order they were queued, one at a time", async () => {
    const s = await server();
    const chat = fakeChat();
    await queueRows(
      s,
      Array.from({ length: 30 }, (_, i) => `slack:C${i % 2}`),
    );
    const worker = createOutboxWorker({ ctx: s.ctx, publishers: [chat], logger: silentLogger, pollMs: 10 });
    workers.push(worker);
    await worker.drain();
    const channel = (c: string) => chat.posted.filter((p) => p.startsWith(`slack:${c} `)).map((p) => Number(p.split(' ')[1]));
    expect(channel('C0')).toEqual(Array.from({ length: 15 }, (_, i) => i * 2));
    expect(channel('C1')).toEqual(Array.from({ length: 15 }, (_, i) => i * 2 + 1));
    // The two channels side by side, never two messages of one channel.
    expect(chat.mostAtOnce).toBeLessThanOrEqual(2);
  });
});

describe('a busy process', () => {
  /** Webhook-like streams (side by side), each delivery held as long as its row's `holdMs`. */
  function heldDeliveries(): Publisher & { open: Set<number>; done: number[]; mostAtOnce: number } {
    const fake = {
      name: 'webhook',
      streamPrefix: 'subscriber:',
      streamWidth: 8,
      minIntervalMs: () => 0,
      open: new Set<number>(),
      done: [] as number[],
      mostAtOnce: 0,
      async deliver(delivery: Delivery) {
        const { n } = delivery.payload as { n: number };
        fake.open.add(n);
        fake.mostAtOnce = Math.max(fake.mostAtOnce, fake.open.size);
        await new Promise((r) => setTimeout(r, n === 0 ? 3_000 : 100));
        fake.open.delete(n);
        fake.done.push(n);
      },
    };
    return fake;
  }

  it('starts no more deliveries than its ceiling, and one waiting on a slow receiver for over a second no longer counts', async () => {
    const s = await server();
    const publisher = heldDeliveries();
    await queueRows(
      s,
      Array.from({ length: 6 }, (_, i) => `subscriber:${i}`),
    );
    const worker = createOutboxWorker({
      ctx: s.ctx,
      publishers: [publisher],
      logger: silentLogger,
      pollMs: 10,
      ceiling: { current: () => 1, stop: () => undefined },
    });
    workers.push(worker);
    worker.start();
    await waitUntil(() => publisher.done.length === 5, { what: 'the five quick deliveries done' });
    // One at a time under the ceiling of 1, and the slow one (row 0) is still under way: after its
    // first second the others no longer waited for it.
    expect(publisher.open.has(0)).toBe(true);
    expect(publisher.mostAtOnce).toBe(2);
    await waitUntil(async () => (await sentCount(s)) === 6, { what: 'all six marked sent' });
  });
});

describe('marking confirmations sent in a batch', () => {
  async function claimedBatch(s: TestServer) {
    await queueRows(s, ['subscriber:1', 'subscriber:1', 'subscriber:1']);
    const claimed = await claimDue(s.ctx, {
      limit: 10,
      leaseMs: 60_000,
      busy: new Set(),
      streamPrefixes: ['subscriber:'],
      widths: { 'subscriber:': DEFAULT_DESTINATION_LIMITS.concurrency },
    });
    expect(claimed).toHaveLength(3);
    return claimed;
  }
  const states = (s: TestServer) => s.ctx.db.selectFrom('outbox').select(['id', 'state', 'lease_token']).orderBy('id').execute();

  it('marks the rows its claims still hold, and leaves one taken over meanwhile to its new holder', async () => {
    const s = await server();
    const [first, second, third] = await claimedBatch(s);
    await s.ctx.write((trx) => trx.updateTable('outbox').set({ lease_token: 'other-process' }).where('id', '=', second!.id).execute());
    const marked = await markSentBatch(s.ctx, [first!, second!, third!]);
    expect([...marked].sort((x, y) => x - y)).toEqual([first!.id, third!.id]);
    expect((await states(s)).map((r) => [r.state, r.lease_token])).toEqual([
      ['sent', null],
      ['pending', 'other-process'],
      ['sent', null],
    ]);
  });

  it('marks none when the transaction fails part-way: every row stays claimed, to be delivered again', async () => {
    const s = await server();
    const claimed = await claimedBatch(s);
    const failing: DomainContext = {
      ...s.ctx,
      write: <T>(unit: (trx: Kysely<Database>) => Promise<T>) =>
        s.ctx.write(async (trx) => {
          await unit(trx);
          throw new Error('disk I/O error');
        }),
    };
    await expect(markSentBatch(failing, claimed)).rejects.toThrow('disk I/O error');
    expect((await states(s)).map((r) => [r.state, r.lease_token])).toEqual(claimed.map((c) => ['pending', c.lease]));
  });
});
