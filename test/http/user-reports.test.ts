import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/domain/companies/api-keys.js';
import type { IncidentAnnouncement } from '../../src/domain/notifications/announcement.js';
import { applyVendorSnapshot } from '../../src/domain/vendors/vendor-ingest.js';
import type { VendorIncident } from '../../src/domain/vendors/vendor-snapshot.js';
import { T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { dueFeedOf } from '../helpers/vendor-feed.js';

const KEYS = ['acme-key-1', 'acme-key-2', 'acme-key-3', 'acme-key-4'] as const;
const GLOBEX = 'globex-key-1';
const FREE = 'initech-key-1';
const MINUTE = 60_000;
const STREAM = 'slack:T1:C-FOLLOW';

const CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
user_reports: { threshold: 3, window_minutes: 30, resolve_after_minutes: 60 }
services:
  - { urlname: acme-cloud, name: Acme Cloud }
  - { urlname: quiet-cloud, name: Quiet Cloud }
  - { urlname: vendor-x, name: Vendor X, feed: { kind: statuspage, url: "https://x.example" } }
companies:
  - name: Acme
    plan: business
    api_keys: [${KEYS.map((k) => `"${k}"`).join(', ')}]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    slack: { team_id: T1 }
    channels:
      - { slack: C-FOLLOW, services: [acme-cloud, vendor-x] }
  - name: Globex
    plan: business
    api_keys: ["${GLOBEX}"]
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
  - name: Initech
    plan: free
    api_keys: ["${FREE}"]
    monitored_services: [quiet-cloud]
`;

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer({ config: CONFIG });
});
afterEach(async () => {
  await s.stop();
});

const report = (service: string, key: string = KEYS[0], body?: unknown) =>
  s.api('POST', `/api/v2/services/${service}/reports`, { key, ...(body === undefined ? {} : { body }) });

async function reportOk(service: string, key: string, body?: unknown) {
  const res = await report(service, key, body);
  expect(res.status, res.text).toBe(202);
  return res;
}

/** Reports by the first `count` keys, one each. */
async function reportBy(service: string, count: number, body?: unknown) {
  for (const key of KEYS.slice(0, count)) await reportOk(service, key, body);
}

const reportRows = () => s.ctx.db.selectFrom('user_reports').selectAll().orderBy('id').execute();
const userIncidents = async (service: string) => {
  const res = await s.api('GET', `/api/v2/services/${service}/incidents?include_user_reports=true`);
  expect(res.status, res.text).toBe(200);
  return (res.body.data as any[]).filter((i) => i.attributes.user_generated);
};
const incident = async (id: string) => (await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes;
const announcements = async () =>
  (await s.ctx.db.selectFrom('outbox').select(['event', 'payload']).where('stream', '=', STREAM).orderBy('id').execute()).map((r) => ({
    event: r.event,
    payload: JSON.parse(r.payload) as IncidentAnnouncement,
  }));
const keyId = async (key: string) => (await s.ctx.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashApiKey(key)).executeTakeFirstOrThrow()).id;
const runJob = () => s.scheduler.runOnce('user-reports');

describe('POST /api/v2/services/{service_name}/reports', () => {
  it('answers 202 with the report, and records it under the API key that sent it', async () => {
    const res = await reportOk('acme-cloud', KEYS[1], { component: 'API', description: 'Requests time out' });
    expect(res.body).toEqual({
      data: { id: expect.stringMatching(/^\d+$/), type: 'user_report', attributes: { service: 'acme-cloud', created_at: T0 } },
    });
    const rows = await reportRows();
    expect(rows).toEqual([
      {
        id: Number(res.body.data.id),
        service_id: expect.any(Number),
        reporter: `key:${await keyId(KEYS[1])}`,
        component: 'API',
        description: 'Requests time out',
        created_at: Date.parse(T0),
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain(KEYS[1]);
  });

  it('takes no body or an empty object, and reports on a custom service of the own company', async () => {
    expect((await report('acme-cloud', KEYS[0])).status).toBe(202);
    expect((await report('quiet-cloud', KEYS[0], {})).status).toBe(202);
    const own = await reportOk('acme-api', KEYS[0], { description: 'x'.repeat(500) });
    expect(own.body.data.attributes.service).toBe('acme-api');
    expect((await reportRows()).map((r) => [r.component, r.description.length])).toEqual([
      [null, 0],
      [null, 0],
      [null, 500],
    ]);
  });

  it("is 404 for an unknown service and for another company's custom service, and records nothing", async () => {
    for (const [service, key] of [
      ['no-such-service', KEYS[0]],
      ['globex-api', KEYS[0]],
      ['acme-api', GLOBEX],
    ] as const) {
      const res = await report(service, key, { description: 'down' });
      expect(res.status, service).toBe(404);
      expect(res.body).toEqual({
        errors: [{ status: 404, title: 'Resource not found', detail: 'The resource you are looking for does not exist' }],
      });
    }
    expect(await reportRows()).toEqual([]);
  });

  it("is 403 where the plan does not show the service's incidents, and records nothing; 202 where it does", async () => {
    const res = await report('acme-cloud', FREE);
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ status: 403, title: 'Forbidden' });
    expect(await reportRows()).toEqual([]);
    expect((await report('quiet-cloud', FREE)).status).toBe(202);
  });

  it('is 422 for a bad body, naming the field, and records nothing', async () => {
    const cases: [unknown, string, string][] = [
      [{ components: 'API' }, 'components is not a known field', '/components'],
      [{ description: 'x'.repeat(501) }, 'description must be at most 500 characters', '/description'],
      [{ component: 5 }, 'component must be a string', '/component'],
      [{ description: null }, 'description must be a string', '/description'],
    ];
    for (const [body, detail, pointer] of cases) {
      const res = await report('acme-cloud', KEYS[0], body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors).toEqual([{ status: 422, title: 'Unprocessable entity', detail, source: { pointer } }]);
    }
    expect(await reportRows()).toEqual([]);
  });

  it('needs an API key', async () => {
    expect((await s.api('POST', '/api/v2/services/acme-cloud/reports', { key: null })).status).toBe(401);
  });
});

describe('an incident from user reports', () => {
  it('opens when the threshold of distinct reporters is reached within the window; a reporter counts once', async () => {
    await reportOk('acme-cloud', KEYS[0], { component: 'API' });
    const first = await reportOk('acme-cloud', KEYS[1], { component: 'Webhooks' });
    s.clock.advance(10 * MINUTE);
    // The same key again: still 202, the same report, its reporter counted once; the component it names now counts too.
    const again = await reportOk('acme-cloud', KEYS[1], { component: 'Dashboard' });
    expect(again.body.data).toEqual(first.body.data);
    expect((await reportRows()).map((r) => r.component)).toEqual(['API', 'Webhooks', 'Dashboard']);
    // The same component again adds nothing.
    await reportOk('acme-cloud', KEYS[1], { component: 'Dashboard' });
    expect(await reportRows()).toHaveLength(3);
    expect(await userIncidents('acme-cloud')).toEqual([]);
    expect(await announcements()).toEqual([]);

    await reportOk('acme-cloud', KEYS[2], { component: 'API', description: 'Timeouts' });
    const [opened, ...more] = await userIncidents('acme-cloud');
    expect(more).toEqual([]);
    const description = '3 people reported problems in the last 30 minutes, with: API, Webhooks, Dashboard.';
    expect(opened).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: 'incident',
      attributes: {
        url: null,
        title: 'Users report problems with Acme Cloud',
        description,
        status: 'minor',
        resolved: false,
        created_at: new Date(Date.parse(T0) + 10 * MINUTE).toISOString(),
        resolved_at: null,
        service: 'Acme Cloud',
        user_generated: true,
        components: [],
      },
    });
    const full = await incident(opened.id);
    expect(full).toMatchObject({ user_generated: true, severity_from_provider: null, resolved: false, service_urlname: 'acme-cloud' });
    expect(full.updates).toEqual([{ status: 'investigating', created_at: opened.attributes.created_at, description }]);

    // Listed only on request; the service's status stays as its provider says.
    expect((await s.api('GET', '/api/v2/services/acme-cloud/incidents')).body.data).toEqual([]);
    expect((await s.api('GET', '/api/v2/services/acme-cloud')).body.data.attributes.status).toBe('ok');

    const told = await announcements();
    expect(told.map((a) => [a.event, a.payload.source, a.payload.incident.id])).toEqual([['incident.created', 'users', Number(opened.id)]]);
    expect(told[0]!.payload.incident.title).toBe('Users report problems with Acme Cloud');
  });

  it('later reports update its description quietly, and open no second incident', async () => {
    await reportBy('acme-cloud', 3, { component: 'API' });
    s.clock.advance(MINUTE);
    await reportOk('acme-cloud', KEYS[3], { component: 'Webhooks' });
    const [only, ...more] = await userIncidents('acme-cloud');
    expect(more).toEqual([]);
    // Counted from the window before it opened; the opening update stays as it was said.
    expect(only.attributes.description).toBe('4 people reported problems in the last 31 minutes, with: API, Webhooks.');
    const full = await incident(only.id);
    expect(full.updates.map((u: any) => u.description)).toEqual(['3 people reported problems in the last 30 minutes, with: API.']);
    expect((await announcements()).map((a) => a.event)).toEqual(['incident.created']);
  });

  it('counts only reports within the window', async () => {
    await reportOk('acme-cloud', KEYS[0]);
    s.clock.advance(31 * MINUTE);
    await reportOk('acme-cloud', KEYS[1]);
    await reportOk('acme-cloud', KEYS[2]);
    expect(await userIncidents('acme-cloud')).toEqual([]);
    // Out of the window, the first reporter counts again.
    await reportOk('acme-cloud', KEYS[0]);
    const [opened] = await userIncidents('acme-cloud');
    expect(opened.attributes.description).toBe('3 people reported problems in the last 30 minutes.');
    expect(await reportRows()).toHaveLength(4);
  });

  it('resolves resolve_after_minutes after the last report, when the job runs, and says so in channels', async () => {
    await reportBy('acme-cloud', 3);
    const [opened] = await userIncidents('acme-cloud');
    s.clock.advance(50 * MINUTE);
    await reportOk('acme-cloud', KEYS[3]);
    s.clock.advance(59 * MINUTE);
    await runJob();
    expect((await incident(opened.id)).resolved).toBe(false);

    s.clock.advance(2 * MINUTE);
    await runJob();
    const resolved = await incident(opened.id);
    expect(resolved).toMatchObject({ resolved: true, resolved_at: s.clock.now().toISOString(), description: 'No new reports for 60 minutes.' });
    expect(resolved.updates.map((u: any) => [u.status, u.description])).toEqual([
      ['investigating', '3 people reported problems in the last 30 minutes.'],
      ['resolved', 'No new reports for 60 minutes.'],
    ]);
    const told = await announcements();
    expect(told.map((a) => [a.event, a.payload.source])).toEqual([
      ['incident.created', 'users'],
      ['incident.resolved', 'users'],
    ]);
    expect(told[1]!.payload.update).toMatchObject({ stage: 'resolved', description: 'No new reports for 60 minutes.' });

    await runJob();
    expect(await announcements()).toHaveLength(2);
  });

  it('needs a fresh threshold of reports after it resolved', async () => {
    await s.stop();
    s = await startTestServer({ config: CONFIG.replace('window_minutes: 30, resolve_after_minutes: 60', 'window_minutes: 120, resolve_after_minutes: 20') });
    await reportBy('acme-cloud', 3);
    s.clock.advance(21 * MINUTE);
    await runJob();
    expect((await userIncidents('acme-cloud')).map((i) => i.attributes.resolved)).toEqual([true]);
    await reportOk('acme-cloud', KEYS[3]);
    expect((await userIncidents('acme-cloud')).map((i) => i.attributes.resolved)).toEqual([true]);
  });

  describe('when the provider opens an incident of its own', () => {
    const vendorFeed = () => dueFeedOf(s.ctx.db, 'vendor-x', 'https://x.example');
    const providerIncident = (resolved: boolean): VendorIncident => ({
      id: 'p1',
      title: 'Elevated API errors',
      severity: 'major',
      severityFromProvider: 'major',
      url: 'https://x.example/incidents/p1',
      description: 'We are investigating.',
      components: ['API'],
      createdAt: s.clock.now(),
      updatedAt: s.clock.now(),
      resolved,
      resolvedAt: resolved ? s.clock.now() : null,
      updates: [{ stage: resolved ? 'resolved' : 'investigating', description: 'We are investigating.', createdAt: s.clock.now() }],
    });
    const ingest = async (incidents: VendorIncident[]) =>
      applyVendorSnapshot(
        s.ctx,
        await vendorFeed(),
        { indicator: incidents.some((i) => !i.resolved) ? 'major' : 'ok', components: [], incidents, maintenances: [], skipped: [] },
        { validators: {}, fingerprint: String(Math.random()), intervalMs: MINUTE },
      );

    it("resolves the user incident, naming the provider's, and says so in channels; also on the first, silent read", async () => {
      await reportBy('vendor-x', 3);
      const [opened] = await userIncidents('vendor-x');
      s.clock.advance(5 * MINUTE);
      expect((await ingest([providerIncident(false)])).first).toBe(true);

      const ended = await incident(opened.id);
      const why = 'The provider opened its own incident: Elevated API errors.';
      expect(ended).toMatchObject({ resolved: true, resolved_at: s.clock.now().toISOString(), description: why });
      expect(ended.updates.at(-1)).toEqual({ status: 'resolved', created_at: s.clock.now().toISOString(), description: why });
      const told = await announcements();
      expect(told.map((a) => [a.event, a.payload.source])).toEqual([
        ['incident.created', 'users'],
        ['incident.resolved', 'users'],
      ]);

      // While the provider's incident is open, reports open no incident of their own.
      await reportOk('vendor-x', KEYS[3]);
      expect((await userIncidents('vendor-x')).filter((i) => !i.attributes.resolved)).toEqual([]);
    });

    it('opens none while the provider shows an open incident; after it ended, only fresh reports count', async () => {
      await ingest([providerIncident(false)]);
      await reportBy('vendor-x', 3);
      expect(await userIncidents('vendor-x')).toEqual([]);
      s.clock.advance(MINUTE);
      await ingest([providerIncident(true)]);
      s.clock.advance(MINUTE);
      await reportOk('vendor-x', KEYS[3]);
      expect(await userIncidents('vendor-x')).toEqual([]);
      // Those who reported during the provider's incident report again, and count again.
      await reportOk('vendor-x', KEYS[0]);
      await reportOk('vendor-x', KEYS[1]);
      expect((await userIncidents('vendor-x')).map((i) => i.attributes.description)).toEqual(['3 people reported problems in the last minute.']);
      expect(await reportRows()).toHaveLength(6);
    });
  });
});
