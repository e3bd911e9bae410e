import { createHmac } from 'node:crypto';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { waitUntil } from '../helpers/wait-until.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { retryDead } from '../../src/delivery/outbox-queue.js';
import { startFakeWebhook } from '../fakes/fake-webhook.js';
import type { FakeWebhook } from '../fakes/fake-webhook.js';
import { acmeConfig, startTestServer, webhookEntry } from '../helpers/test-server.js';
import type { TestServer, TestServerOptions } from '../helpers/test-server.js';

const SECRET = 'whsec-0123456789abcdef';
const FAST = { enabled: true, baseDelayMs: 10, maxDelayMs: 40, pollMs: 10 } as const;

const config = (hook: string) => acmeConfig({ subscribers: [webhookEntry(`${hook}/hooks/a`, SECRET)] });

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

async function start(delivery: TestServerOptions['delivery'] = FAST) {
  const s = await startTestServer({ config: config(hook.url), dbPath: database.path, delivery });
  servers.push(s);
  return s;
}

/** Whether the outbox holds `count` rows, all sent: no delivery is still under way, nor any due. */
async function allSent(s: TestServer, count: number): Promise<boolean> {
  const rows = await s.ctx.db.selectFrom('outbox').select('state').execute();
  return rows.length === count && rows.every((r) => r.state === 'sent');
}

const events = () => hook.received.map((h) => JSON.parse(h.body) as { event: string; incident: { id: number; title: string } });

describe('webhook delivery', () => {
  it('is not held up by rows waiting for destinations this process cannot reach (no smtp, no chat credentials)', async () => {
    const s = await start();
    const now = s.clock.now().getTime();
    const company = await s.ctx.db.selectFrom('companies').select('id').executeTakeFirstOrThrow();
    const stranded = Array.from({ length: 40 }, (_, i) => ({
      company_id: company.id,
      subscriber_id: null,
      stream: i % 2 === 0 ? `email:${i + 1}` : `discord:G1:C${i}`,
      event: 'incident.created',
      payload: '{}',
      state: 'pending' as const,
      next_attempt_at: now,
      created_at: now,
    }));
    await s.ctx.db.insertInto('outbox').values(stranded).execute();
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Behind forty others' } });
    await waitUntil(() => hook.received.length === 1);
    expect(events()[0]!.incident.title).toBe('Behind forty others');
    const waiting = () => s.ctx.db.selectFrom('outbox').select('stream').where('state', '=', 'pending').execute();
    // The webhook's row is marked sent once the receiver answered: then only the stranded rows wait.
    await waitUntil(async () => (await waiting()).length === stranded.length);
    expect((await waiting()).map((r) => r.stream).sort()).toEqual(stranded.map((r) => r.stream).sort());
  });

  it('POSTs each notification once, signed with HMAC-SHA256 of the body', async () => {
    const s = await start();
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Down' } });
    // The row is marked sent once the receiver answered, after it got the request.
    await waitUntil(() => allSent(s, 1));
    expect(hook.received).toHaveLength(1);
    const [delivery] = hook.received;
    expect(delivery!.path).toBe('/hooks/a');
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['x-statusbot-event']).toBe('incident.created');
    expect(delivery!.headers['x-statusbot-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(delivery!.body).digest('hex')}`);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      event: 'incident.created',
      service: { id: 1001, urlname: 'acme-api', status: 'minor' },
      incident: { id: Number(created.body.data.id), title: 'Down', resolved: false },
    });
    const row = await s.ctx.db.selectFrom('outbox').select(['state', 'attempts', 'sent_at']).executeTakeFirstOrThrow();
    expect(row.state).toBe('sent');
    expect(row.sent_at).not.toBeNull();
  });

  it('retries through 500s and a 429 with Retry-After, then delivers each once', async () => {
    const s = await start();
    hook.failNext(3, 500);
    hook.failNext(1, 429, 0);
    const { body } = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'One' } });
    await s.api('PATCH', `/api/v2/incidents/${body.data.id}`, { body: { description: 'fixing', resolution_stage: 'identified' } });
    await s.api('PATCH', `/api/v2/incidents/${body.data.id}`, { body: { description: 'fixed', resolution_stage: 'resolved' } });
    await waitUntil(() => allSent(s, 3));
    // A webhook's rows go side by side: each carries its event, not its place in line.
    expect(
      events()
        .map((e) => e.event)
        .sort(),
    ).toEqual(['incident.created', 'incident.resolved', 'incident.updated']);
    const attempts = await s.ctx.db.selectFrom('outbox').select('attempts').execute();
    // Three 500s count as attempts, whichever rows met them; the 429 does not.
    expect(attempts.reduce((sum, r) => sum + r.attempts, 0)).toBe(3);
  });

  it('dead-letters a row after the last attempt, keeps it, and delivers it once retried', async () => {
    const s = await start({ ...FAST, maxAttempts: 3 });
    hook.failNext(3, 503);
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Doomed' } });
    await waitUntil(async () => (await s.ctx.db.selectFrom('outbox').select('state').executeTakeFirstOrThrow()).state === 'dead');
    const dead = await s.ctx.db.selectFrom('outbox').select(['attempts', 'last_error']).executeTakeFirstOrThrow();
    expect(dead.attempts).toBe(3);
    expect(dead.last_error).toContain('HTTP 503');
    expect(hook.received).toHaveLength(0);
    expect(await retryDead(s.ctx)).toBe(1);
    s.worker.wake();
    await waitUntil(() => allSent(s, 1));
    expect(hook.received).toHaveLength(1);
    expect(events()[0]!.incident.title).toBe('Doomed');
  });

  it('delivers rows left pending by a stopped server after the next start, once', async () => {
    const first = await start({ enabled: false });
    await first.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Before restart' } });
    await first.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Also before' } });
    expect(await first.ctx.db.selectFrom('outbox').select('state').execute()).toEqual([{ state: 'pending' }, { state: 'pending' }]);
    await servers.pop()!.stop();

    const second = await start();
    await waitUntil(() => allSent(second, 2));
    expect(
      events()
        .map((e) => e.incident.title)
        .sort(),
    ).toEqual(['Also before', 'Before restart']);
  });

  it('a row held by a process that died is taken over once its lease ends', async () => {
    const s = await start({ enabled: false });
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Leased' } });
    // As if another process had claimed it and crashed.
    await s.ctx.db
      .updateTable('outbox')
      .set({ lease_until: Date.parse('2026-11-22T10:03:00.000Z') })
      .execute();
    await s.worker.drain();
    expect(hook.received).toHaveLength(0);
    s.clock.advance(120_000);
    await s.worker.drain();
    expect(hook.received).toHaveLength(1);
  });

  it('refuses a webhook on a private address when probes.block_private_targets is on, and keeps the row', async () => {
    const s = await startTestServer({
      config: `probes: { block_private_targets: true }\n${config(hook.url)}`,
      dbPath: database.path,
      delivery: { enabled: false, maxAttempts: 3 },
    });
    servers.push(s);
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Guarded' } });
    await s.worker.drain();
    expect(hook.received).toEqual([]);
    const [row] = await s.ctx.db.selectFrom('outbox').select(['state', 'attempts', 'last_error']).execute();
    expect(row).toMatchObject({ state: 'pending', attempts: 1 });
    expect(row!.last_error).toMatch(/blocked private target 127\.0\.0\.1/);
  });
});
