import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeMarker } from '../../src/db/database.js';
import { DEMO_PERIOD_MS } from '../../src/domain/model/demo-cycle.js';
import { syncDemoServices } from '../../src/domain/demo/demo-services.js';
import { FREE_KEY, GLOBEX_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

describe('GET /api/v2/services', () => {
  it('lists the catalog with demo services, not custom services, in the 2.1 shape', async () => {
    const res = await s.api('GET', '/api/v2/services');
    expect(res.status).toBe(200);
    const urlnames = res.body.data.map((d: { attributes: { urlname: string } }) => d.attributes.urlname);
    expect(urlnames).toEqual(expect.arrayContaining(['acme-cloud', 'demo-service', 'demo-service-ok', 'demo-service-minor', 'demo-service-major']));
    expect(urlnames).not.toContain('acme-api');
    expect(urlnames).not.toContain('globex-api');
    const cloud = res.body.data.find((d: { attributes: { urlname: string } }) => d.attributes.urlname === 'acme-cloud');
    expect(cloud).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: 'service',
      attributes: { name: 'Acme Cloud', urlname: 'acme-cloud', tracker_url: 'http://status.test/services/acme-cloud' },
    });
  });
});

describe('GET /api/v2/services/{service_name}', () => {
  it('answers status and status_page_url beside the 2.1 fields', async () => {
    const res = await s.api('GET', '/api/v2/services/acme-cloud');
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({
      name: 'Acme Cloud',
      urlname: 'acme-cloud',
      tracker_url: 'http://status.test/services/acme-cloud',
      status: 'ok',
      status_page_url: 'https://status.acme-cloud.example',
      // A service without a feed: never read, never failing.
      last_checked_at: null,
      feed_error: null,
    });
    expect((await s.api('GET', '/api/v2/services/demo-service-major')).body.data.attributes.status).toBe('major');
    expect((await s.api('GET', '/api/v2/services/demo-service-minor')).body.data.attributes.status).toBe('minor');
    expect((await s.api('GET', '/api/v2/services/demo-service-ok')).body.data.attributes.status).toBe('ok');
  });

  it("derives a custom service's status from its open incidents: worst first", async () => {
    const minor = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: 'a', status: 'minor' } });
    expect((await s.api('GET', '/api/v2/services/acme-web')).body.data.attributes.status).toBe('minor');
    const major = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: 'b', status: 'major' } });
    expect((await s.api('GET', '/api/v2/services/acme-web')).body.data.attributes.status).toBe('major');
    await s.api('PATCH', `/api/v2/incidents/${major.body.data.id}`, { body: { description: 'ok', resolution_stage: 'resolved' } });
    expect((await s.api('GET', '/api/v2/services/acme-web')).body.data.attributes.status).toBe('minor');
    await s.api('DELETE', `/api/v2/incidents/${minor.body.data.id}`);
    expect((await s.api('GET', '/api/v2/services/acme-web')).body.data.attributes.status).toBe('ok');
  });

  it("shows a custom service's linked status page; another company's custom service is 404", async () => {
    expect((await s.api('GET', '/api/v2/services/acme-api')).body.data.attributes.status_page_url).toBe('https://status.acme.example');
    expect((await s.api('GET', '/api/v2/services/acme-api', { key: GLOBEX_KEY })).status).toBe(404);
    expect((await s.api('GET', '/api/v2/services/no-such-service')).status).toBe(404);
  });
});

describe('GET /api/v2/services/{service_name}/incidents', () => {
  it("lists a service's incidents in the 2.3 shape, newest first", async () => {
    const res = await s.api('GET', '/api/v2/services/demo-service-major/incidents');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: 'incident',
      attributes: {
        url: null,
        title: 'Demo major outage',
        description: 'The demo service is in a major outage.',
        status: 'major',
        resolved: false,
        created_at: T0,
        resolved_at: null,
        service: 'Demo Service (major outage)',
        user_generated: false,
        components: [],
      },
    });
  });

  it('covers the last 30 days plus unresolved ones, and user reports only on request', async () => {
    const cloud = await s.ctx.db.selectFrom('services').select('id').where('urlname', '=', 'acme-cloud').executeTakeFirstOrThrow();
    const now = new Date(T0).getTime();
    const day = 86_400_000;
    const base = {
      service_id: cloud.id,
      status: 'minor' as const,
      description: 'x',
      url: 'https://status.acme-cloud.example/incidents/1',
      severity_from_provider: 'minor',
      external_key: null,
      user_generated: 0,
      components: '[]',
      updated_at: now,
    };
    await s.ctx.db
      .insertInto('incidents')
      .values([
        { ...base, title: 'old resolved', resolved: 1, created_at: now - 31 * day, resolved_at: now - 31 * day },
        { ...base, title: 'old open', resolved: 0, created_at: now - 40 * day, resolved_at: null },
        { ...base, title: 'recent', resolved: 1, created_at: now - 2 * day, resolved_at: now - day, components: '["API","Web"]' },
        { ...base, title: 'newest', resolved: 1, created_at: now - day, resolved_at: now - day },
        { ...base, title: 'reported', resolved: 0, created_at: now - 3 * day, resolved_at: null, user_generated: 1 },
      ])
      .execute();
    const res = await s.api('GET', '/api/v2/services/acme-cloud/incidents');
    expect(res.body.data.map((d: { attributes: { title: string } }) => d.attributes.title)).toEqual(['newest', 'recent', 'old open']);
    const recent = res.body.data[1].attributes;
    expect(recent.components).toEqual(['API', 'Web']);
    expect(recent.url).toBe('https://status.acme-cloud.example/incidents/1');
    const withReports = await s.api('GET', '/api/v2/services/acme-cloud/incidents?include_user_reports=true');
    expect(withReports.body.data.map((d: { attributes: { title: string } }) => d.attributes.title)).toEqual(['newest', 'recent', 'reported', 'old open']);
    expect(withReports.body.data[2].attributes.user_generated).toBe(true);
  });

  it('rejects an include_user_reports that is not true or false with 422 naming the parameter', async () => {
    const res = await s.api('GET', '/api/v2/services/acme-cloud/incidents?include_user_reports=yes');
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ status: 422, source: { parameter: 'include_user_reports' } });
  });

  it('on the free plan, answers monitored services and 403 for the rest', async () => {
    expect((await s.api('GET', '/api/v2/services/demo-service-minor/incidents', { key: FREE_KEY })).status).toBe(200);
    const res = await s.api('GET', '/api/v2/services/demo-service-major/incidents', { key: FREE_KEY });
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ status: 403, title: 'Forbidden' });
    expect((await s.api('GET', '/api/v2/services/demo-service-major/incidents', { key: GLOBEX_KEY })).status).toBe(200);
    expect((await s.api('GET', '/api/v2/services/nope/incidents')).status).toBe(404);
  });
});

describe('demo-service', () => {
  it('changes status at every 5-minute boundary: ok, minor, ok, major, with an incident per outage', async () => {
    const t = await startTestServer();
    try {
      // The first boundary after T0 whose period starts a cycle (ok).
      let b = Math.ceil(new Date(T0).getTime() / DEMO_PERIOD_MS) * DEMO_PERIOD_MS;
      while ((b / DEMO_PERIOD_MS) % 4 !== 0) b += DEMO_PERIOD_MS;
      const statusAt = async (ms: number) => {
        t.clock.set(ms);
        return (await t.api('GET', '/api/v2/services/demo-service')).body.data.attributes.status;
      };
      expect(await statusAt(b)).toBe('ok');
      expect(await statusAt(b + DEMO_PERIOD_MS - 1)).toBe('ok');
      expect(await statusAt(b + DEMO_PERIOD_MS)).toBe('minor');
      expect(await statusAt(b + 2 * DEMO_PERIOD_MS)).toBe('ok');
      expect(await statusAt(b + 3 * DEMO_PERIOD_MS + 1000)).toBe('major');
      const list = await t.api('GET', '/api/v2/services/demo-service/incidents');
      const [major, minor] = list.body.data;
      expect(major.attributes).toMatchObject({ status: 'major', resolved: false, created_at: new Date(b + 3 * DEMO_PERIOD_MS).toISOString() });
      expect(minor.attributes).toMatchObject({
        status: 'minor',
        resolved: true,
        created_at: new Date(b + DEMO_PERIOD_MS).toISOString(),
        resolved_at: new Date(b + 2 * DEMO_PERIOD_MS).toISOString(),
      });
      const detail = await t.api('GET', `/api/v2/incidents/${minor.id}`);
      expect(detail.body.data.attributes.updates.map((u: { status: string }) => u.status)).toEqual(['investigating', 'resolved']);
      // Jumping ahead an hour catches up on every missed period, once.
      t.clock.set(b + 16 * DEMO_PERIOD_MS);
      const later = await t.api('GET', '/api/v2/services/demo-service/incidents');
      const sinceB = later.body.data.filter((d: { attributes: { created_at: string } }) => Date.parse(d.attributes.created_at) >= b);
      expect(sinceB).toHaveLength(8);
      expect(later.body.data.filter((d: { attributes: { resolved: boolean } }) => !d.attributes.resolved)).toHaveLength(0);
    } finally {
      await t.stop();
    }
  });

  it('reads past a period boundary show the new state, and write nothing: the demo job writes it later, the same', async () => {
    const t = await startTestServer();
    try {
      let b = Math.ceil(new Date(T0).getTime() / DEMO_PERIOD_MS) * DEMO_PERIOD_MS;
      while ((b / DEMO_PERIOD_MS) % 4 !== 0) b += DEMO_PERIOD_MS;
      const stored = async () => ({
        marker: await changeMarker(t.ctx.db),
        incidents: await t.ctx.db.selectFrom('incidents').selectAll().orderBy('id').execute(),
        updates: await t.ctx.db.selectFrom('incident_updates').selectAll().orderBy('id').execute(),
        meta: await t.ctx.db.selectFrom('meta').selectAll().orderBy('key').execute(),
        outbox: await t.ctx.db.selectFrom('outbox').selectAll().orderBy('id').execute(),
      });
      const before = await stored();

      // The minor outage of period b+1 begins; the demo job has not run since the start.
      t.clock.set(b + DEMO_PERIOD_MS + 1000);
      expect((await t.api('GET', '/api/v2/services/demo-service')).body.data.attributes.status).toBe('minor');
      const [minor] = (await t.api('GET', '/api/v2/services/demo-service/incidents')).body.data;
      const at = (k: number) => new Date(b + k * DEMO_PERIOD_MS).toISOString();
      expect(minor.attributes).toMatchObject({ status: 'minor', resolved: false, resolved_at: null, created_at: at(1) });

      // Its period is over: it reads as resolved at the boundary, with its closing update.
      t.clock.set(b + 2 * DEMO_PERIOD_MS);
      expect((await t.api('GET', '/api/v2/services/demo-service')).body.data.attributes.status).toBe('ok');
      const list = (await t.api('GET', '/api/v2/services/demo-service/incidents')).body.data;
      expect(list[0].id).toBe(minor.id);
      expect(list[0].attributes).toMatchObject({ resolved: true, resolved_at: at(2) });
      const detail = (await t.api('GET', `/api/v2/incidents/${minor.id}`)).body.data.attributes;
      expect(detail).toMatchObject({ resolved: true, description: 'The demo outage is over.', updated_at: at(2) });
      expect(detail.updates).toEqual([
        { status: 'investigating', description: 'The demo service is in a minor outage.', created_at: at(1) },
        { status: 'resolved', description: 'The demo outage is over.', created_at: at(2) },
      ]);

      expect(await stored()).toEqual(before);
      const row = await t.ctx.db.selectFrom('incidents').select('resolved').where('id', '=', Number(minor.id)).executeTakeFirstOrThrow();
      expect(row.resolved).toBe(0);

      // The demo job writes what the reads showed.
      expect((await syncDemoServices(t.ctx)).filter((c) => c.change === 'resolved').map((c) => String(c.incidentId))).toContain(minor.id);
      expect((await t.api('GET', `/api/v2/incidents/${minor.id}`)).body.data.attributes).toEqual(detail);
      expect((await t.api('GET', '/api/v2/services/demo-service/incidents')).body.data).toEqual(list);
    } finally {
      await t.stop();
    }
  });
});
