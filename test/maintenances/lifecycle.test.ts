import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyConfig } from '../../src/config/load-config.js';
import { silentLogger as quiet } from '../../src/infrastructure/pino-logger.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { createJobDeps } from '../../src/main.js';
import { startFakeSmtp } from '../fakes/fake-smtp.js';
import type { FakeSmtp } from '../fakes/fake-smtp.js';
import { startFakeWebhook } from '../fakes/fake-webhook.js';
import type { FakeWebhook } from '../fakes/fake-webhook.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, FAST_DELIVERY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer, TestServerOptions } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const HOUR = 3_600_000;
const at = (hoursFromT0: number) => new Date(Date.parse(T0) + hoursFromT0 * HOUR).toISOString();

const config = (hook: string, smtp: string) => `
public_url: http://status.test
smtp: { url: "${smtp}", from: "Acme status <status@acme.example>" }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
      - { id: 1003, name: Acme Admin, urlname: acme-admin }
    status_pages:
      - name: Acme status
        slug: acme
        services: [acme-api, acme-web]
        subscribers:
          - { webhook: "${hook}/hooks/a", secret: "whsec-0123456789abcdef" }
          - { email: "ops@acme.example" }
`;

let hook: FakeWebhook;
let smtp: FakeSmtp;
let database: TestDatabase;
const servers: TestServer[] = [];
beforeEach(async () => {
  hook = await startFakeWebhook();
  smtp = await startFakeSmtp();
  database = await createTestDatabase();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await hook.close();
  await smtp.close();
  await database.drop();
});

async function start(options: Partial<TestServerOptions> = {}) {
  const s = await startTestServer({ config: config(hook.url, smtp.url), dbPath: database.path, delivery: FAST_DELIVERY, ...options });
  servers.push(s);
  return s;
}

const job = JOBS.find((j) => j.name === 'maintenances')!;
const tick = (s: TestServer) => job.run(createJobDeps(s.ctx, emptyConfig(), quiet), s.clock.now());

async function schedule(s: TestServer, body: Record<string, unknown> = {}) {
  const res = await s.api('POST', '/api/v2/maintenances', {
    body: { title: 'Database upgrade', description: 'Postgres 17.', service_ids: [1001, 1002], starts_at: at(1), ends_at: at(2), ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as string;
}

/**
 * Waits until every queued notification was delivered: the tests move the
 * clock by hours, which would let a delivery under way lose its lease and go out twice.
 */
async function delivered(s: TestServer): Promise<void> {
  await waitUntil(async () => (await s.ctx.db.selectFrom('outbox').select('state').where('state', '!=', 'sent').execute()).length === 0, {
    what: 'every notification delivered',
  });
}

const hookEvents = () => hook.received.map((h) => JSON.parse(h.body) as { event: string; maintenance: { id: number; status: string } });
const subjects = () => smtp.received.filter((m) => m.to.includes('ops@acme.example')).map((m) => m.subject);
const attributes = async (s: TestServer, id: string) => (await s.api('GET', `/api/v2/maintenances/${id}`)).body.data.attributes;
const serviceStatus = async (s: TestServer, urlname: string) => (await s.api('GET', `/api/v2/services/${urlname}`)).body.data.attributes.status;

describe('a maintenance over its life', () => {
  it('starts and completes at its times through the job, each move told once to webhook and email subscribers', async () => {
    const s = await start();
    const id = await schedule(s);
    await waitUntil(() => hook.received.length === 1 && subjects().length === 1, { what: 'the scheduling told' });
    expect(hookEvents()[0]).toMatchObject({ event: 'maintenance.scheduled', maintenance: { id: Number(id), status: 'scheduled' } });
    expect(subjects()).toEqual(['[Acme status] Scheduled maintenance: Database upgrade']);
    const mail = smtp.received[0]!;
    expect(mail.text).toContain('Services: Acme API, Acme Web');
    expect(mail.text).toContain('Postgres 17.');
    expect(mail.text).toContain(`http://status.test/maintenances/${id}`);

    // Before its start the job moves nothing.
    await tick(s);
    await delivered(s);
    expect((await attributes(s, id)).status).toBe('scheduled');
    expect(await serviceStatus(s, 'acme-api')).toBe('ok');

    s.clock.set(at(1));
    await tick(s);
    await tick(s);
    const started = await attributes(s, id);
    expect(started.status).toBe('in_progress');
    expect(started.updates.map((u: { status: string }) => u.status)).toEqual(['scheduled', 'in_progress']);
    expect(await serviceStatus(s, 'acme-api')).toBe('maintenance');
    expect(await serviceStatus(s, 'acme-web')).toBe('maintenance');
    expect(await serviceStatus(s, 'acme-admin')).toBe('ok');

    await delivered(s);
    s.clock.set(at(2));
    await tick(s);
    await tick(s);
    const completed = await attributes(s, id);
    expect(completed.status).toBe('completed');
    expect(completed.updates.map((u: { status: string }) => u.status)).toEqual(['scheduled', 'in_progress', 'completed']);
    expect(await serviceStatus(s, 'acme-api')).toBe('ok');

    const cancelled = await schedule(s, { title: 'Network change', service_ids: [1002], starts_at: at(5), ends_at: at(6) });
    const res = await s.api('PATCH', `/api/v2/maintenances/${cancelled}`, { body: { status: 'cancelled', description: 'Not needed after all.' } });
    expect(res.status, res.text).toBe(200);

    await waitUntil(() => hook.received.length === 5 && subjects().length === 5, { what: 'every move told' });
    // Webhooks and mail to one destination may go side by side (they carry their event time): the
    // moves told one after the other arrived in order, the last two (queued together) in either order.
    const events = hookEvents().map((e) => e.event);
    expect(events.slice(0, 3)).toEqual(['maintenance.scheduled', 'maintenance.started', 'maintenance.completed']);
    expect(events.slice(3).sort()).toEqual(['maintenance.cancelled', 'maintenance.scheduled']);
    const mailed = subjects();
    expect(mailed.slice(0, 3)).toEqual([
      '[Acme status] Scheduled maintenance: Database upgrade',
      '[Acme status] Maintenance in progress: Database upgrade',
      '[Acme status] Maintenance completed: Database upgrade',
    ]);
    expect(mailed.slice(3).sort()).toEqual(['[Acme status] Maintenance cancelled: Network change', '[Acme status] Scheduled maintenance: Network change']);
    expect(smtp.received.map((m) => m.text).join('\n')).toContain('Not needed after all.');
  });

  it('is completed early on request, and the job then has nothing left to do', async () => {
    const s = await start();
    const id = await schedule(s);
    await delivered(s);
    s.clock.set(at(1));
    await tick(s);
    await delivered(s);
    s.clock.set(at(1.5));
    const res = await s.api('PATCH', `/api/v2/maintenances/${id}`, { body: { status: 'completed', description: 'Done early.' } });
    expect(res.body.data.attributes.updates.at(-1)).toMatchObject({ status: 'completed', description: 'Done early.' });
    expect(await serviceStatus(s, 'acme-api')).toBe('ok');
    await delivered(s);
    s.clock.set(at(2));
    await tick(s);
    await waitUntil(() => hook.received.length === 3, { what: 'scheduled, started, completed' });
    expect(hookEvents().map((e) => e.event)).toEqual(['maintenance.scheduled', 'maintenance.started', 'maintenance.completed']);
  });

  it('is started and completed at the first run after a restart, when its times passed while no server ran', async () => {
    const first = await start({ delivery: { enabled: false } });
    const id = await schedule(first);
    await first.stop();
    servers.splice(servers.indexOf(first), 1);

    const later = await start({ delivery: { enabled: false } });
    later.clock.set(at(3));
    await tick(later);
    const attrs = await attributes(later, id);
    expect(attrs.status).toBe('completed');
    expect(attrs.updates).toEqual([
      { status: 'scheduled', created_at: T0, description: 'Postgres 17.' },
      { status: 'in_progress', created_at: at(3), description: 'Maintenance is in progress.' },
      { status: 'completed', created_at: at(3), description: 'Maintenance is complete.' },
    ]);
    const rows = await later.ctx.db.selectFrom('outbox').select('event').where('stream', 'like', 'subscriber:%').orderBy('id').execute();
    expect(rows.map((r) => r.event)).toEqual(['maintenance.scheduled', 'maintenance.started', 'maintenance.completed']);
  });

  it('moves once on two replicas running the job at the same moment: one update, one notification each', async () => {
    const a = await start({ delivery: { enabled: false } });
    const b = await start({ delivery: { enabled: false } });
    const id = await schedule(a);
    for (const s of [a, b]) s.clock.set(at(1));
    await Promise.all([tick(a), tick(b), tick(a), tick(b)]);
    for (const s of [a, b]) s.clock.set(at(2));
    await Promise.all([tick(a), tick(b), tick(a), tick(b)]);
    expect((await attributes(b, id)).updates.map((u: { status: string }) => u.status)).toEqual(['scheduled', 'in_progress', 'completed']);
    const rows = await a.ctx.db.selectFrom('outbox').select(['stream', 'event']).orderBy('id').execute();
    expect(rows.filter((r) => r.stream.startsWith('subscriber:')).map((r) => r.event)).toEqual([
      'maintenance.scheduled',
      'maintenance.started',
      'maintenance.completed',
    ]);
    expect(rows.filter((r) => r.stream.startsWith('email:')).map((r) => r.event)).toEqual([
      'maintenance.scheduled',
      'maintenance.started',
      'maintenance.completed',
    ]);
  });
});
