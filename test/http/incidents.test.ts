import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GLOBEX_KEY, FREE_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});
beforeEach(() => {
  s.clock.set(T0);
});

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function create(body: Record<string, unknown>) {
  const res = await s.api('POST', '/api/v2/incidents', { body });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

describe('POST /api/v2/incidents', () => {
  it('creates an incident with the full 2.4 shape, one update, and defaults', async () => {
    const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'API errors' } });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(res.headers.get('location')).toBe(`/api/v2/incidents/${data.id}`);
    expect(typeof data.id).toBe('string');
    expect(data.type).toBe('incidents');
    expect(Object.keys(data).sort()).toEqual(['attributes', 'id', 'type']);
    expect(data.attributes).toEqual({
      url: `https://status.acme.example/incidents/${data.id}`,
      title: 'API errors',
      description: '',
      status: 'minor',
      resolved: false,
      created_at: T0,
      resolved_at: null,
      updated_at: T0,
      service_id: 1001,
      service: 'Acme API',
      service_status_url: 'https://status.acme.example',
      service_urlname: 'acme-api',
      user_generated: false,
      severity_from_provider: null,
      components: [],
      updates: [{ status: 'investigating', created_at: T0, description: '' }],
      tracker_url: `http://status.test/incidents/${data.id}`,
    });
  });

  it('without a linked status page, url and service_status_url are null', async () => {
    const data = await create({ service_id: 1002, title: 'Web slow', status: 'major', description: 'Slow pages', resolution_stage: 'identified' });
    expect(data.attributes.url).toBeNull();
    expect(data.attributes.service_status_url).toBeNull();
    expect(data.attributes.status).toBe('major');
    expect(data.attributes.description).toBe('Slow pages');
    expect(data.attributes.updates).toEqual([{ status: 'identified', created_at: T0, description: 'Slow pages' }]);
  });

  it('with resolution_stage resolved, the incident is resolved at once', async () => {
    const data = await create({ service_id: 1001, title: 'Blip', resolution_stage: 'resolved', description: 'Was brief' });
    expect(data.attributes.resolved).toBe(true);
    expect(data.attributes.resolved_at).toBe(T0);
    expect(data.attributes.created_at).toMatch(ISO_MS);
  });

  it("refuses a third-party or another company's service with 422 naming service_id, and writes nothing", async () => {
    const before = await s.ctx.db
      .selectFrom('incidents')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    for (const service_id of [1, 2001, 999999]) {
      const res = await s.api('POST', '/api/v2/incidents', { body: { service_id, title: 'x' } });
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ status: 422, title: 'Unprocessable entity', source: { pointer: '/service_id' } });
      expect(res.body.errors[0].detail).toContain('service_id');
    }
    const after = await s.ctx.db
      .selectFrom('incidents')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('writes the status page change and one outbox row per subscriber in the same transaction', async () => {
    const data = await create({ service_id: 1001, title: 'Major outage', status: 'major' });
    const page = await s.ctx.db.selectFrom('status_page_services').select('updated_at').where('service_id', '=', 1001).executeTakeFirstOrThrow();
    expect(page.updated_at).toBe(Date.parse(data.attributes.created_at));
    const rows = await s.ctx.db.selectFrom('outbox').selectAll().where('event', '=', 'incident.created').orderBy('id').execute();
    const mine = rows.filter((r) => JSON.parse(r.payload).incident.id === Number(data.id));
    expect(mine).toHaveLength(2);
    expect(mine.map((r) => r.state)).toEqual(['pending', 'pending']);
    const payload = JSON.parse(mine[0]!.payload);
    expect(payload).toMatchObject({
      event: 'incident.created',
      status_page: { name: 'Acme status', url: 'https://status.acme.example' },
      service: { id: 1001, urlname: 'acme-api', status: 'major' },
      incident: { id: Number(data.id), title: 'Major outage', status: 'major', resolved: false, resolution_stage: 'investigating' },
    });
  });
});

describe('GET /api/v2/incidents/:id', () => {
  it('answers the incident with its updates oldest first', async () => {
    const data = await create({ service_id: 1001, title: 'Timeline', description: 'one' });
    s.clock.advance(60_000);
    await s.api('PATCH', `/api/v2/incidents/${data.id}`, { body: { description: 'two', resolution_stage: 'identified' } });
    s.clock.advance(60_000);
    await s.api('PATCH', `/api/v2/incidents/${data.id}`, { body: { description: 'three', resolution_stage: 'monitoring' } });
    const res = await s.api('GET', `/api/v2/incidents/${data.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.type).toBe('incidents');
    expect(res.body.data.attributes.description).toBe('three');
    expect(res.body.data.attributes.updates).toEqual([
      { status: 'investigating', created_at: '2026-11-22T10:02:00.000Z', description: 'one' },
      { status: 'identified', created_at: '2026-11-22T10:03:00.000Z', description: 'two' },
      { status: 'monitoring', created_at: '2026-11-22T10:04:00.000Z', description: 'three' },
    ]);
  });

  it('is 404 for another company, and for ids that are not integers', async () => {
    const data = await create({ service_id: 1001, title: 'Private' });
    const other = await s.api('GET', `/api/v2/incidents/${data.id}`, { key: GLOBEX_KEY });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({
      errors: [{ status: 404, title: 'Resource not found', detail: 'The resource you are looking for does not exist' }],
    });
    for (const id of ['abc', '-1', '1.5', '99999999', '1e3']) {
      expect((await s.api('GET', `/api/v2/incidents/${id}`)).status).toBe(404);
    }
  });

  it('shows third-party incidents by plan: business all, free only monitored (else 403)', async () => {
    const list = await s.api('GET', '/api/v2/services/demo-service-major/incidents');
    const id = list.body.data[0].id;
    const business = await s.api('GET', `/api/v2/incidents/${id}`, { key: GLOBEX_KEY });
    expect(business.status).toBe(200);
    expect(business.body.data.attributes.severity_from_provider).toBe('major');
    const free = await s.api('GET', `/api/v2/incidents/${id}`, { key: FREE_KEY });
    expect(free.status).toBe(403);
    expect(free.body.errors[0]).toMatchObject({ status: 403, title: 'Forbidden' });
  });
});

describe('PATCH /api/v2/incidents/:id', () => {
  it('answers the reduced update shape', async () => {
    const data = await create({ service_id: 1001, title: 'Old' });
    s.clock.advance(1000);
    const res = await s.api('PATCH', `/api/v2/incidents/${data.id}`, { body: { title: 'New', status: 'major' } });
    expect(res.status).toBe(200);
    expect(res.body.data.type).toBe('incidents');
    expect(Object.keys(res.body.data.attributes).sort()).toEqual(
      ['title', 'description', 'status', 'resolved', 'created_at', 'resolved_at', 'updated_at', 'service_id', 'service', 'updates', 'tracker_url'].sort(),
    );
    expect(res.body.data.attributes).toMatchObject({ title: 'New', status: 'major', updated_at: '2026-11-22T10:02:01.000Z' });
    expect(res.body.data.attributes.updates).toHaveLength(1);
  });

  it('resolves with resolution_stage resolved, and reopens on a later non-resolved stage', async () => {
    const data = await create({ service_id: 1001, title: 'Flaky' });
    s.clock.advance(5000);
    const resolved = await s.api('PATCH', `/api/v2/incidents/${data.id}`, { body: { description: 'Fixed', resolution_stage: 'resolved' } });
    expect(resolved.body.data.attributes).toMatchObject({ resolved: true, resolved_at: '2026-11-22T10:02:05.000Z', description: 'Fixed' });
    s.clock.advance(5000);
    const reopened = await s.api('PATCH', `/api/v2/incidents/${data.id}`, { body: { description: 'Back again', resolution_stage: 'investigating' } });
    expect(reopened.body.data.attributes).toMatchObject({ resolved: false, resolved_at: null });
    expect(reopened.body.data.attributes.updates.map((u: { status: string }) => u.status)).toEqual(['investigating', 'resolved', 'investigating']);
    const events = await s.ctx.db.selectFrom('outbox').select(['event', 'payload']).execute();
    const mine = events.filter((e) => JSON.parse(e.payload).incident.id === Number(data.id)).map((e) => e.event);
    expect(mine).toEqual(['incident.created', 'incident.created', 'incident.resolved', 'incident.resolved', 'incident.reopened', 'incident.reopened']);
  });

  it('is 422 naming the missing field when only one of description and resolution_stage is sent; nothing changes', async () => {
    const data = await create({ service_id: 1001, title: 'Half' });
    const a = await s.api('PATCH', `/api/v2/incidents/${data.id}`, { body: { description: 'only text', title: 'Changed' } });
    expect(a.status).toBe(422);
    expect(a.body.errors[0]).toMatchObject({ status: 422, source: { pointer: '/resolution_stage' } });
    expect(a.body.errors[0].detail).toContain('resolution_stage');
    const b = await s.api('PATCH', `/api/v2/incidents/${data.id}`, { body: { resolution_stage: 'monitoring' } });
    expect(b.status).toBe(422);
    expect(b.body.errors[0].detail).toContain('description');
    const after = await s.api('GET', `/api/v2/incidents/${data.id}`);
    expect(after.body.data.attributes.title).toBe('Half');
    expect(after.body.data.attributes.updates).toHaveLength(1);
  });

  it("is 403 on a third-party incident and 404 on another company's", async () => {
    const list = await s.api('GET', '/api/v2/services/demo-service-major/incidents');
    const thirdParty = await s.api('PATCH', `/api/v2/incidents/${list.body.data[0].id}`, { body: { title: 'mine now' } });
    expect(thirdParty.status).toBe(403);
    const data = await create({ service_id: 1001, title: 'Acme only' });
    const other = await s.api('PATCH', `/api/v2/incidents/${data.id}`, { key: GLOBEX_KEY, body: { title: 'hijack' } });
    expect(other.status).toBe(404);
    expect((await s.api('GET', `/api/v2/incidents/${data.id}`)).body.data.attributes.title).toBe('Acme only');
  });
});

describe('DELETE /api/v2/incidents/:id', () => {
  it('answers 204 with no body, removes the incident and its updates, and updates the status page', async () => {
    const data = await create({ service_id: 1001, title: 'Gone soon', status: 'major' });
    const res = await s.api('DELETE', `/api/v2/incidents/${data.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await s.api('GET', `/api/v2/incidents/${data.id}`)).status).toBe(404);
    const updates = await s.ctx.db.selectFrom('incident_updates').select('id').where('incident_id', '=', Number(data.id)).execute();
    expect(updates).toEqual([]);
    const deleted = await s.ctx.db.selectFrom('outbox').select('payload').where('event', '=', 'incident.deleted').execute();
    expect(deleted.some((r) => JSON.parse(r.payload).incident.id === Number(data.id))).toBe(true);
    expect((await s.api('DELETE', `/api/v2/incidents/${data.id}`)).status).toBe(404);
  });

  it('is 404 for another company and 403 for a third-party incident', async () => {
    const data = await create({ service_id: 1001, title: 'Keep' });
    expect((await s.api('DELETE', `/api/v2/incidents/${data.id}`, { key: GLOBEX_KEY })).status).toBe(404);
    expect((await s.api('GET', `/api/v2/incidents/${data.id}`)).status).toBe(200);
    const list = await s.api('GET', '/api/v2/services/demo-service-minor/incidents');
    expect((await s.api('DELETE', `/api/v2/incidents/${list.body.data[0].id}`)).status).toBe(403);
  });
});

describe('cached reads', () => {
  it('show a change at once when made in this process, and soon when made by another process', async () => {
    const data = await create({ service_id: 1001, title: 'Cached' });
    const path = `/api/v2/incidents/${data.id}`;
    expect((await s.api('GET', path)).body.data.attributes.title).toBe('Cached');
    expect((await s.api('GET', path)).body.data.attributes.title).toBe('Cached');
    // A write that bypasses the API, on the server's own connection.
    await s.ctx.db.updateTable('incidents').set({ title: 'Changed here' }).where('id', '=', Number(data.id)).execute();
    expect((await s.api('GET', path)).body.data.attributes.title).toBe('Changed here');
    // Another process's connection (e.g. `statusbot apply`, a second server).
    const { openDatabase } = await import('../../src/db/database.js');
    const other = openDatabase({ path: s.dbPath });
    try {
      await other.updateTable('incidents').set({ title: 'Changed elsewhere' }).where('id', '=', Number(data.id)).execute();
    } finally {
      await other.destroy();
    }
    const title = async () => (await s.api('GET', path)).body.data.attributes.title;
    await waitUntil(async () => (await title()) === 'Changed elsewhere', { what: 'the change made elsewhere to show' });
  });

  it('answer each company for itself', async () => {
    const data = await create({ service_id: 1001, title: 'Mine' });
    expect((await s.api('GET', `/api/v2/incidents/${data.id}`)).status).toBe(200);
    expect((await s.api('GET', `/api/v2/incidents/${data.id}`, { key: GLOBEX_KEY })).status).toBe(404);
  });
});
