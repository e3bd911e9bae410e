import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runningClock } from '../../src/domain/clock.js';
import type { ManualClock } from '../../src/domain/clock.js';
import { startFakeWebhook } from '../fakes/fake-webhook.js';
import type { FakeWebhook } from '../fakes/fake-webhook.js';
import { recordingLogger } from '../helpers/loggers.js';
import type { LogRecord } from '../helpers/loggers.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { acmeConfig, startTestServer, T0, webhookEntry } from '../helpers/test-server.js';
import type { TestServer, TestServerOptions } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const FAST = { enabled: true, baseDelayMs: 10, maxDelayMs: 40, pollMs: 10 } as const;

const config = (hook: string, timeoutSeconds = 10) =>
  acmeConfig({ top: `probes: { timeout_seconds: ${timeoutSeconds} }`, subscribers: [webhookEntry(`${hook}/hooks/a`)] });

let hook: FakeWebhook;
let database: TestDatabase;
const servers: TestServer[] = [];
beforeEach(async () => {
  hook = await startFakeWebhook();
  database = await createTestDatabase();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await hook.close();
  await database.drop();
});

async function start(options: { delivery?: TestServerOptions['delivery']; timeoutSeconds?: number; clock?: ManualClock; records?: LogRecord[] } = {}) {
  const s = await startTestServer({
    config: config(hook.url, options.timeoutSeconds),
    dbPath: database.path,
    delivery: options.delivery ?? FAST,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.records ? { logger: recordingLogger(options.records) } : {}),
  });
  servers.push(s);
  return s;
}

const rows = (s: TestServer) =>
  s.ctx.db.selectFrom('outbox').select(['id', 'state', 'attempts', 'last_error', 'sent_at', 'next_attempt_at']).orderBy('id').execute();
const open = (s: TestServer, title: string) => s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title } });

describe('delivery under a slow receiver and two servers', () => {
  it('a delivery that outlasts its lease keeps it: two servers deliver the row once, never at once', async () => {
    hook.trickle(5_000);
    // One clock for both, as servers on synchronised hosts; leases far shorter than the delivery, yet long
    // enough that a renewal every third of one is not late on a busy machine.
    const clock = runningClock(T0);
    const delivery = { ...FAST, leaseMs: 1_500 };
    const a = await start({ delivery, clock });
    await start({ delivery, clock });
    await open(a, 'Slow receiver');
    await waitUntil(async () => (await rows(a))[0]?.state === 'sent', { what: 'the row sent' });
    expect(hook.received).toHaveLength(1);
    expect(hook.mostAtOnce).toBe(1);
    // Two servers started and a body trickled for 5 s: more than the default on a busy machine.
  });

  it('a server whose lease was taken over marks nothing, and says so', async () => {
    hook.trickle(1_000);
    const records: LogRecord[] = [];
    const s = await start({ records });
    await open(s, 'Taken over');
    await waitUntil(() => hook.received.length === 1);
    // As if the lease had run out and another server had claimed the row meanwhile.
    await s.ctx.db
      .updateTable('outbox')
      .set({ lease_until: s.clock.now().getTime() + 600_000, lease_token: 'another-server' })
      .execute();
    await waitUntil(() => records.find((r) => r.level === 'warn' && /held by another process/.test(r.message)), { what: 'the warning' });
    expect(await rows(s)).toEqual([expect.objectContaining({ state: 'pending', attempts: 0, last_error: null, sent_at: null })]);
    const row = await s.ctx.db.selectFrom('outbox').select('lease_token').executeTakeFirstOrThrow();
    expect(row.lease_token).toBe('another-server');
  });

  it('a body that trickles past the deadline ends the delivery, with the reason recorded and a retry scheduled', async () => {
    hook.trickle(Number.POSITIVE_INFINITY);
    const s = await start({ delivery: { ...FAST, baseDelayMs: 600_000, maxDelayMs: 600_000 }, timeoutSeconds: 1 });
    await open(s, 'Never-ending body');
    const [row] = await waitUntil(async () => {
      const found = await rows(s);
      return found[0]?.attempts === 1 ? found : null;
    });
    expect(row).toMatchObject({ state: 'pending', sent_at: null });
    expect(row!.last_error).toMatch(/timeout after 1 s/);
    expect(row!.next_attempt_at).toBeGreaterThan(s.clock.now().getTime());
    expect(hook.requests).toHaveLength(1);
  });
});

describe('idempotency key', () => {
  it('is the same on every retry of a row and differs between rows', async () => {
    const s = await start();
    hook.failNext(2, 500);
    const created = await open(s, 'Keyed');
    await s.api('PATCH', `/api/v2/incidents/${created.body.data.id}`, { body: { description: 'fixing', resolution_stage: 'identified' } });
    await waitUntil(async () => (await rows(s)).every((r) => r.state === 'sent') && hook.received.length === 2);
    const [first, second] = await rows(s);
    const keysOf = (id: number) => hook.requests.filter((r) => r.headers['x-statusbot-delivery'] === String(id)).map((r) => r.headers['idempotency-key']);
    expect(hook.requests).toHaveLength(4);
    // Whichever row met the two failures, every request of a row carries that row's one key.
    const [firstKeys, secondKeys] = [keysOf(first!.id), keysOf(second!.id)];
    expect(firstKeys.length + secondKeys.length).toBe(4);
    expect(new Set(firstKeys).size).toBe(1);
    expect(new Set(secondKeys).size).toBe(1);
    expect(firstKeys[0]).toBeTruthy();
    expect(secondKeys[0]).toBeTruthy();
    expect(secondKeys[0]).not.toBe(firstKeys[0]);
  });
});
