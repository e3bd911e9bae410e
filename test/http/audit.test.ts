import { afterEach, describe, expect, it } from 'vitest';
import { emptyConfig } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { createScheduler } from '../../src/jobs/scheduler.js';
import { createJobDeps } from '../../src/main.js';
import { ACME_BOARD, ACME_KEY, GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
afterEach(async () => {
  await s?.stop();
});

const keyIdOf = async (t: TestServer, company: string) =>
  Number(
    (
      await t.ctx.db
        .selectFrom('api_keys')
        .innerJoin('companies', 'companies.id', 'api_keys.company_id')
        .select('api_keys.id')
        .where('companies.name', '=', company)
        .orderBy('api_keys.id')
        .executeTakeFirstOrThrow()
    ).id,
  );

const auditRows = async (t: TestServer) =>
  Number(
    (
      await t.ctx.db
        .selectFrom('audit_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('the audit trail', () => {
  it('records who created, updated and deleted an incident through the API, with the request id and the fields changed', async () => {
    s = await startTestServer();
    const keyId = await keyIdOf(s, 'Acme');
    const created = await s.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Logins fail', description: 'Looking.', status: 'major' },
      headers: { 'x-request-id': 'req-create-1' },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const updated = await s.api('PATCH', `/api/v2/incidents/${id}`, {
      body: { title: 'Logins fail for SSO users', description: 'Found it', resolution_stage: 'identified' },
    });
    expect(updated.status).toBe(200);
    expect((await s.api('DELETE', `/api/v2/incidents/${id}`)).status).toBe(204);

    const res = await s.api('GET', '/api/v2/audit_events');
    expect(res.status).toBe(200);
    const [deleted, update, create, applied] = res.body.data;
    expect(res.body.data).toHaveLength(4);
    // The config the server started with, applied by the operator.
    expect(applied.attributes).toMatchObject({ actor: 'cli', action: 'config.apply', target: { type: 'company' }, request_id: null });
    expect(create).toMatchObject({
      type: 'audit_event',
      attributes: {
        actor: `api_key:${keyId}`,
        action: 'incident.create',
        target: { type: 'incident', id },
        request_id: 'req-create-1',
        changes: { service_id: { to: 1001 }, title: { to: 'Logins fail' }, status: { to: 'major' }, description: { to: 'Looking.' }, resolved: { to: false } },
      },
    });
    expect(create.attributes.changes.title).not.toHaveProperty('from');
    expect(update.attributes).toMatchObject({
      action: 'incident.update',
      request_id: updated.headers.get('x-request-id'),
      changes: { title: { from: 'Logins fail', to: 'Logins fail for SSO users' }, update: { to: { stage: 'identified', description: 'Found it' } } },
    });
    expect(update.attributes.changes).not.toHaveProperty('resolved');
    expect(deleted.attributes).toMatchObject({ action: 'incident.delete', changes: { title: { from: 'Logins fail for SSO users' } } });
    expect(Date.parse(create.attributes.occurred_at)).toBe(s.clock.now().getTime());
    expect(res.body.links).toEqual({ next: null });
  });

  it('shows a company only its own events, and refused or invalid changes leave none', async () => {
    s = await startTestServer();
    const before = await auditRows(s);
    expect((await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001 } })).status).toBe(422);
    expect((await s.api('PATCH', '/api/v2/incidents/424242', { body: { title: 'x' } })).status).toBe(404);
    expect((await s.api('POST', '/api/v2/incidents', { key: GLOBEX_KEY, body: { service_id: 1001, title: 'Not ours' } })).status).toBe(422);
    expect(await auditRows(s)).toBe(before);

    expect((await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Ours' } })).status).toBe(201);
    expect((await s.api('POST', '/api/v2/incidents', { key: GLOBEX_KEY, body: { service_id: 2001, title: 'Theirs' } })).status).toBe(201);
    const acme = (await s.api('GET', '/api/v2/audit_events')).body.data.filter((e: any) => e.attributes.action.startsWith('incident.'));
    const globex = (await s.api('GET', '/api/v2/audit_events', { key: GLOBEX_KEY })).body.data.filter((e: any) => e.attributes.action.startsWith('incident.'));
    expect(acme.map((e: any) => e.attributes.changes.title.to)).toEqual(['Ours']);
    expect(globex.map((e: any) => e.attributes.changes.title.to)).toEqual(['Theirs']);
    expect((await s.api('GET', '/api/v2/audit_events', { key: null })).status).toBe(401);
  });

  it('pages newest first with ?before= and links.next, and refuses a cursor that is no id', async () => {
    s = await startTestServer();
    for (const title of ['one', 'two', 'three', 'four', 'five']) {
      expect((await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title } })).status).toBe(201);
    }
    const seen: string[] = [];
    let next: string | null = '/api/v2/audit_events?limit=2';
    let pages = 0;
    while (next) {
      const page = await s.api('GET', next);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.filter((e: any) => e.attributes.action === 'incident.create').map((e: any) => e.attributes.changes.title.to));
      next = page.body.links.next;
      pages += 1;
    }
    expect(seen).toEqual(['five', 'four', 'three', 'two', 'one']);
    expect(pages).toBeGreaterThanOrEqual(3);

    for (const [bad, detail] of [
      ['?before=abc', 'before must be the id of an audit event, such as 1234'],
      ['?before=0', 'before must be the id of an audit event, such as 1234'],
      ['?limit=0', 'limit must be at least 1'],
      ['?limit=201', 'limit must be at most 200'],
      ['?limit=x', 'limit must be a number from 1 to 200'],
    ]) {
      const res = await s.api('GET', `/api/v2/audit_events${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.errors.map((e: any) => e.detail)).toContain(detail);
    }
  });

  it('records board changes with their tags', async () => {
    s = await startTestServer();
    expect((await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/demo-service-minor`, { body: { tags: ['edge'] } })).status).toBe(201);
    expect((await s.api('PATCH', `/api/v2/boards/${ACME_BOARD}/services/demo-service-minor`, { body: { tags: ['edge', 'cdn'] } })).status).toBe(200);
    const [update, add] = (await s.api('GET', '/api/v2/audit_events')).body.data;
    expect(add.attributes).toMatchObject({
      action: 'board_service.add',
      target: { type: 'board_service', id: `${ACME_BOARD}/demo-service-minor` },
      changes: { tags: { to: ['edge'] } },
    });
    expect(update.attributes).toMatchObject({ action: 'board_service.update', changes: { tags: { from: ['edge'], to: ['edge', 'cdn'] } } });
  });

  it('records a user report as its reporter, and what a job removes as job:<name>', async () => {
    s = await startTestServer();
    const report = await s.api('POST', '/api/v2/services/demo-service/reports', { body: { description: 'Slow' } });
    expect(report.status).toBe(202);
    const [event] = (await s.api('GET', '/api/v2/audit_events')).body.data;
    expect(event.attributes).toMatchObject({ action: 'user_report.create', target: { type: 'user_report' }, changes: { description: { to: 'Slow' } } });

    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Long ago', resolution_stage: 'resolved' } });
    expect(created.status).toBe(201);
    s.clock.advance(400 * 86_400_000);
    const deps = createJobDeps(s.ctx, emptyConfig(), silentLogger);
    try {
      await createScheduler({ deps, jobs: JOBS }).runOnce('retention');
    } finally {
      await deps.close();
    }
    const removed = await s.ctx.db.selectFrom('audit_events').selectAll().where('action', '=', 'incident.expire').execute();
    expect(removed).toHaveLength(1);
    expect(removed[0]).toMatchObject({ actor: 'job:retention', target_type: 'incident', request_id: null });
    expect(JSON.parse(removed[0]!.changes)).toEqual({ ids: { from: [Number(created.body.data.id)] } });
  });

  it('keeps the API key out of every audit row', async () => {
    s = await startTestServer();
    expect((await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Key check' } })).status).toBe(201);
    const rows = await s.ctx.db.selectFrom('audit_events').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(ACME_KEY);
  });
});
