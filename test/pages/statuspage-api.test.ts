import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statuspageIncidents, statuspageSummary } from '../../src/ingest/statuspage-payload.js';
import { askHost, OWN_HOST, STATUSPAGE_API_CONFIG, STATUSPAGE_ENDPOINTS, visibleText } from '../helpers/pages.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const t0 = Date.parse(T0);

/** The keys of real Statuspage documents (test/fixtures/status-feeds), object by object. */
function fixtureKeys() {
  const read = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/status-feeds/${name}`, import.meta.url), 'utf8'));
  const github = read('statuspage-github-summary.json');
  const incidents = read('json/statuspage-github-incidents-components.json');
  const renku = read('json/statuspage-renku-summary-maintenance.json');
  const keys = (o: object) => Object.keys(o).sort();
  const incident = incidents.incidents.find((i: any) => i.components.length > 0 && i.incident_updates[0].affected_components);
  const maintenance = renku.scheduled_maintenances[0];
  return {
    summary: keys(github),
    page: keys(github.page),
    status: keys(github.status),
    component: keys(github.components[0]),
    incident: keys(incident),
    update: keys(incident.incident_updates[0]),
    affected: keys(incident.incident_updates[0].affected_components[0]),
    incidentComponent: keys(incident.components[0]),
    maintenance: keys(maintenance),
    maintenanceUpdate: keys(maintenance.incident_updates[0]),
    maintenanceComponent: keys(maintenance.components[0]),
  };
}
const keys = (o: object) => Object.keys(o).sort();

describe('the Statuspage API of a status page', () => {
  let t: TestServer;
  const own = (path: string, options: { method?: string; headers?: Record<string, string> } = {}) => askHost(t.url, { host: OWN_HOST, path, ...options });
  const main = (path: string, options: { method?: string; headers?: Record<string, string> } = {}) => askHost(t.url, { path, ...options });

  beforeAll(async () => {
    t = await startTestServer({ config: STATUSPAGE_API_CONFIG });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('answers every endpoint at the root of the page’s own host, ahead of the private API, as under /status/{slug}/', async () => {
    for (const endpoint of STATUSPAGE_ENDPOINTS) {
      const atRoot = await own(`/api/v2/${endpoint}`);
      expect(atRoot.status, endpoint).toBe(200);
      expect(atRoot.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(atRoot.headers['access-control-allow-origin']).toBe('*');
      expect(atRoot.json.page).toMatchObject({ id: expect.any(String), name: 'Acme status', url: `https://${OWN_HOST}`, time_zone: 'Etc/UTC' });
      const underSlug = await main(`/status/acme/api/v2/${endpoint}`);
      expect(underSlug.status, endpoint).toBe(200);
      expect(underSlug.headers['access-control-allow-origin']).toBe('*');
      expect(underSlug.json).toEqual(atRoot.json);
    }
    // The footer's JSON link of the page at its own root leads there.
    const page = await own('/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/api/v2/summary.json"');
  });

  it('leaves the private API to the main host, where it still wants a key, and to the API’s own paths on the page’s host', async () => {
    const withKey = { authorization: `Bearer ${ACME_KEY}` };
    expect((await main('/api/v2/incidents', { headers: withKey })).status).toBe(200);
    const noKey = await main('/api/v2/incidents');
    expect(noKey.status).toBe(401);
    expect(noKey.json.errors[0].title).toBe('Unauthorized access');
    // The Statuspage paths at the root of the main host are the API's: no page there.
    expect((await main('/api/v2/summary.json')).status).toBe(401);
    const asApi = await main('/api/v2/summary.json', { headers: withKey });
    expect(asApi.status).toBe(404);
    expect(asApi.json.errors[0].title).toBe('Resource not found');
    // On the page's host, what is not a Statuspage document is the private API's, key and all.
    expect((await own('/api/v2/incidents')).status).toBe(401);
    const incidents = await own('/api/v2/incidents', { headers: withKey });
    expect(incidents.status).toBe(200);
    expect(incidents.json.data).toEqual([]);
    // A key sent along changes nothing for the public documents.
    expect((await own('/api/v2/status.json', { headers: withKey })).json.status).toEqual({ indicator: 'none', description: 'All Systems Operational' });
  });

  it('answers a CORS preflight for every endpoint, on both addresses', async () => {
    const preflight = { origin: 'https://dashboard.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' };
    for (const endpoint of STATUSPAGE_ENDPOINTS) {
      for (const answer of [
        await own(`/api/v2/${endpoint}`, { method: 'OPTIONS', headers: preflight }),
        await main(`/status/acme/api/v2/${endpoint}`, { method: 'OPTIONS', headers: preflight }),
      ]) {
        expect(answer.status, endpoint).toBe(204);
        expect(answer.headers['access-control-allow-origin']).toBe('*');
        expect(answer.headers['access-control-allow-methods']).toContain('GET');
        expect(answer.headers['access-control-allow-headers']).toBe('*');
        expect(answer.text).toBe('');
      }
    }
    // A revalidation from another origin: 304, still readable there.
    const first = await own('/api/v2/summary.json');
    const again = await own('/api/v2/summary.json', { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
    expect(again.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers unknown endpoints, unknown pages and other methods in the API’s JSON error shape', async () => {
    for (const answer of [
      await main('/status/acme/api/v2/nope.json'),
      await main('/status/acme/api/v2/incidents/42.json'),
      await main('/status/acme/api/v1/summary.json'),
      await main('/status/nope/api/v2/summary.json'),
      await own('/api/v2/nope.json'),
      await own('/api/v2/nope.json', { method: 'OPTIONS' }),
    ]) {
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.json).toEqual({ errors: [{ status: 404, title: 'Resource not found', detail: expect.any(String) }] });
    }
    const post = await main('/status/acme/api/v2/summary.json', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET');
    expect(post.json.errors[0].status).toBe(405);
  });

  it('writes every document with the fields of Statuspage’s own, field by field', async () => {
    const real = fixtureKeys();
    const incident = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Slow API', description: 'Requests are slow.', status: 'minor' },
    });
    expect(incident.status).toBe(201);
    await t.ctx.write((trx) =>
      trx
        .insertInto('maintenance_windows')
        .values([
          { service_id: 1002, starts_at: t0 - HOUR, ends_at: t0 + HOUR },
          { service_id: 1004, starts_at: t0 + DAY, ends_at: t0 + DAY + 2 * HOUR },
        ])
        .execute(),
    );
    try {
      const summary = (await own('/api/v2/summary.json')).json;
      expect(statuspageSummary.safeParse(summary).success).toBe(true);
      expect(keys(summary)).toEqual(real.summary);
      expect(keys(summary.page)).toEqual(real.page);
      expect(keys(summary.status)).toEqual(real.status);
      for (const c of summary.components) expect(keys(c)).toEqual(c.group ? [...real.component, 'components'].sort() : real.component);
      const [open] = summary.incidents;
      expect(keys(open)).toEqual(real.incident);
      expect(keys(open.incident_updates[0])).toEqual(real.update);
      expect(keys(open.incident_updates[0].affected_components[0])).toEqual(real.affected);
      expect(keys(open.components[0])).toEqual(real.incidentComponent);
      expect(summary.scheduled_maintenances).toHaveLength(2);
      for (const m of summary.scheduled_maintenances) {
        // Statuspage writes a maintenance as an incident, which carries reminder_intervals today (the GitHub capture);
        // the Renku capture of 2021 predates the field.
        expect(keys(m)).toEqual([...real.maintenance, 'reminder_intervals'].sort());
        expect(keys(m.incident_updates[0])).toEqual(real.maintenanceUpdate);
        expect(keys(m.components[0])).toEqual(real.maintenanceComponent);
      }
      const list = (await own('/api/v2/incidents.json')).json;
      expect(statuspageIncidents.safeParse(list).success).toBe(true);
      expect(keys(list)).toEqual(['incidents', 'page']);
      expect(keys((await own('/api/v2/status.json')).json)).toEqual(['page', 'status']);
      expect(keys((await own('/api/v2/components.json')).json)).toEqual(['components', 'page']);
      expect(keys((await own('/api/v2/incidents/unresolved.json')).json)).toEqual(['incidents', 'page']);
      for (const endpoint of ['scheduled-maintenances.json', 'scheduled-maintenances/upcoming.json', 'scheduled-maintenances/active.json']) {
        expect(keys((await own(`/api/v2/${endpoint}`)).json)).toEqual(['page', 'scheduled_maintenances']);
      }
    } finally {
      await t.api('DELETE', `/api/v2/incidents/${incident.body.data.id}`);
      await t.ctx.write((trx) => trx.deleteFrom('maintenance_windows').execute());
    }
  });
});

describe('components, incidents and maintenance as Statuspage states them', () => {
  let t: TestServer;
  const doc = async (endpoint: string) => {
    const answer = await askHost(t.url, { host: OWN_HOST, path: `/api/v2/${endpoint}` });
    expect(answer.status, endpoint).toBe(200);
    return answer.json;
  };

  beforeAll(async () => {
    t = await startTestServer({ config: STATUSPAGE_API_CONFIG });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('lists services in the config’s order, a group where its first service stands, with its members after it', async () => {
    const { components } = await doc('components.json');
    expect(components.map((c: any) => [c.name, c.position, c.group, c.group_id])).toEqual([
      ['Acme Web', 1, false, null],
      ['Backend', 2, true, null],
      ['Acme Billing', 1, false, components[1].id],
      ['Acme API', 2, false, components[1].id],
      ['Acme Auth', 3, false, null],
    ]);
    expect(components[1].components).toEqual([components[2].id, components[3].id]);
    expect(components.every((c: any) => c.status === 'operational')).toBe(true);
    // summary.json holds the same components.
    expect((await doc('summary.json')).components).toEqual(components);
    // The page shows them in that order, the group's services under its heading.
    const html = await (await fetch(`${t.url}/status/acme`)).text();
    const text = visibleText(html.slice(html.indexOf('id="services"')));
    expect(text).toMatch(/Acme Web Operational .* Backend Acme Billing Operational .* Acme API Operational .* Acme Auth Operational/);
    expect(html).toMatch(/<h3>Backend<\/h3>\s*<ul class="plain">\s*<li class="card">\s*<div class="row">\s*<h4>Acme Billing<\/h4>/);
  });

  it('keeps each component’s created_at as the days go by, and moves its updated_at only when its own status changes', async () => {
    const before = await doc('components.json');
    const byName = (document: any) => new Map<string, any>(document.components.map((c: any) => [c.name, c]));
    // Made at the first apply, at T0.
    for (const c of before.components) expect(c.created_at).toBe(T0);

    t.clock.advance(3 * DAY);
    const opened = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'API down', description: 'Errors.', status: 'major' } });
    expect(opened.status).toBe(201);
    const openedAt = new Date(t0 + 3 * DAY).toISOString();
    let now = byName(await doc('components.json'));
    expect(now.get('Acme API')).toMatchObject({ status: 'major_outage', created_at: T0, updated_at: openedAt });
    expect(now.get('Acme Web')).toMatchObject({ status: 'operational', created_at: T0, updated_at: T0 });
    // The group takes its worst member's status and its latest change.
    expect(now.get('Backend')).toMatchObject({ status: 'major_outage', created_at: T0, updated_at: openedAt });
    expect((await doc('status.json')).status).toEqual({ indicator: 'major', description: 'Partial System Outage' });

    // An update that changes no status leaves updated_at where it was.
    t.clock.advance(HOUR);
    await t.api('PATCH', `/api/v2/incidents/${opened.body.data.id}`, { body: { resolution_stage: 'identified', description: 'A bad deploy.' } });
    expect(byName(await doc('components.json')).get('Acme API').updated_at).toBe(openedAt);

    t.clock.advance(HOUR);
    await t.api('PATCH', `/api/v2/incidents/${opened.body.data.id}`, { body: { resolution_stage: 'resolved', description: 'Rolled back.' } });
    const resolvedAt = new Date(t0 + 3 * DAY + 2 * HOUR).toISOString();
    now = byName(await doc('components.json'));
    expect(now.get('Acme API')).toMatchObject({ status: 'operational', created_at: T0, updated_at: resolvedAt });
    expect(now.get('Acme Web').updated_at).toBe(T0);
    expect((await doc('status.json')).status).toEqual({ indicator: 'none', description: 'All Systems Operational' });
  });

  it('lists incidents newest first by created_at, whatever was updated last, and the open ones alone as unresolved', async () => {
    const first = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: 'First', description: 'One.', status: 'minor' } });
    t.clock.advance(60_000);
    const second = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1003, title: 'Second', description: 'Two.', status: 'minor' } });
    t.clock.advance(60_000);
    // The first one changes last.
    await t.api('PATCH', `/api/v2/incidents/${first.body.data.id}`, { body: { resolution_stage: 'resolved', description: 'Fixed.' } });

    const { incidents } = await doc('incidents.json');
    expect(incidents.map((i: any) => i.name)).toEqual(['Second', 'First', 'API down']);
    const created = incidents.map((i: any) => Date.parse(i.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(incidents[1]).toMatchObject({ status: 'resolved', impact: 'minor', resolved_at: expect.any(String) });
    // Nor of an open incident.
    for (const i of incidents) expect(i.reminder_intervals).toBe('[]');
    expect(incidents[1].incident_updates.map((u: any) => [u.status, u.body])).toEqual([
      ['resolved', 'Fixed.'],
      ['investigating', 'One.'],
    ]);

    const unresolved = await doc('incidents/unresolved.json');
    expect(unresolved.incidents.map((i: any) => [i.id, i.status])).toEqual([[second.body.data.id, 'investigating']]);
    expect((await doc('summary.json')).incidents.map((i: any) => i.id)).toEqual([second.body.data.id]);
    expect((await doc('status.json')).status).toEqual({ indicator: 'minor', description: 'Minor Service Outage' });
    await t.api('PATCH', `/api/v2/incidents/${second.body.data.id}`, { body: { resolution_stage: 'resolved', description: 'Fixed.' } });
    expect((await doc('incidents/unresolved.json')).incidents).toEqual([]);
  });

  it('states maintenance as scheduled maintenances: scheduled, in progress, completed, each on its endpoint', async () => {
    const now = t.clock.now().getTime();
    await t.ctx.write((trx) =>
      trx
        .insertInto('maintenance_windows')
        .values([
          { service_id: 1002, starts_at: now - 2 * DAY, ends_at: now - 2 * DAY + HOUR },
          { service_id: 1004, starts_at: now - HOUR, ends_at: now + HOUR },
          { service_id: 1001, starts_at: now + DAY, ends_at: now + DAY + 2 * HOUR },
        ])
        .execute(),
    );
    const iso = (ms: number) => new Date(ms).toISOString();
    const all = (await doc('scheduled-maintenances.json')).scheduled_maintenances;
    expect(all.map((m: any) => [m.name, m.status, m.impact, m.scheduled_for, m.scheduled_until])).toEqual([
      ['Maintenance of Acme API', 'scheduled', 'maintenance', iso(now + DAY), iso(now + DAY + 2 * HOUR)],
      ['Maintenance of Acme Auth', 'in_progress', 'maintenance', iso(now - HOUR), iso(now + HOUR)],
      ['Maintenance of Acme Web', 'completed', 'maintenance', iso(now - 2 * DAY), iso(now - 2 * DAY + HOUR)],
    ]);
    expect(all[2].resolved_at).toBe(iso(now - 2 * DAY + HOUR));
    // statusbot sends no reminders of a maintenance: Statuspage's "[]" (reminders off), not null (its default, 3, 6, 12 and 24 hours).
    for (const m of all) expect(m.reminder_intervals).toBe('[]');
    expect(all[2].incident_updates.map((u: any) => u.status)).toEqual(['completed', 'in_progress', 'scheduled']);
    expect(all[1].incident_updates.map((u: any) => u.status)).toEqual(['in_progress', 'scheduled']);
    expect(all[1].components.map((c: any) => [c.name, c.status])).toEqual([['Acme Auth', 'under_maintenance']]);
    expect(all[0].components.map((c: any) => [c.name, c.status])).toEqual([['Acme API', 'operational']]);

    expect((await doc('scheduled-maintenances/upcoming.json')).scheduled_maintenances.map((m: any) => m.id)).toEqual([all[0].id]);
    expect((await doc('scheduled-maintenances/active.json')).scheduled_maintenances.map((m: any) => m.id)).toEqual([all[1].id]);
    expect((await doc('summary.json')).scheduled_maintenances.map((m: any) => m.id)).toEqual([all[0].id, all[1].id]);
    const components = new Map<string, any>((await doc('components.json')).components.map((c: any) => [c.name, c]));
    expect(components.get('Acme Auth')).toMatchObject({ status: 'under_maintenance', updated_at: iso(now - HOUR) });
    expect((await doc('status.json')).status).toEqual({ indicator: 'maintenance', description: 'Service Under Maintenance' });

    // Two hours on, the one in progress is completed; ids stay.
    t.clock.advance(2 * HOUR);
    const later = (await doc('scheduled-maintenances.json')).scheduled_maintenances;
    expect(later.map((m: any) => [m.id, m.status])).toEqual([
      [all[0].id, 'scheduled'],
      [all[1].id, 'completed'],
      [all[2].id, 'completed'],
    ]);
    expect((await doc('scheduled-maintenances/active.json')).scheduled_maintenances).toEqual([]);
    expect(new Map<string, any>((await doc('components.json')).components.map((c: any) => [c.name, c])).get('Acme Auth')).toMatchObject({
      status: 'operational',
      updated_at: iso(now + HOUR),
    });
  });
});

describe('the component states of each incident update, as it was posted', () => {
  let t: TestServer;
  const incidents = async () => (await askHost(t.url, { host: OWN_HOST, path: '/api/v2/incidents.json' })).json.incidents;
  const affected = (incident: any) => incident.incident_updates.map((u: any) => [u.status, u.affected_components]);
  const api = (code: string, old_status: string, new_status: string) => [{ code, name: 'Acme API', old_status, new_status }];

  beforeAll(async () => {
    t = await startTestServer({ config: STATUSPAGE_API_CONFIG });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('says, per update, what the service’s component was before it and became with it: minor, then major, then resolved', async () => {
    const opened = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'API slow', description: 'Slow.', status: 'minor' } });
    expect(opened.status).toBe(201);
    const id = opened.body.data.id;
    t.clock.advance(HOUR);
    await t.api('PATCH', `/api/v2/incidents/${id}`, { body: { status: 'major', resolution_stage: 'identified', description: 'Down now.' } });
    t.clock.advance(HOUR);
    await t.api('PATCH', `/api/v2/incidents/${id}`, { body: { resolution_stage: 'resolved', description: 'Fixed.' } });

    const [incident] = await incidents();
    const code = incident.components[0].id;
    expect(affected(incident)).toEqual([
      ['resolved', api(code, 'major_outage', 'operational')],
      ['identified', api(code, 'degraded_performance', 'major_outage')],
      ['investigating', api(code, 'operational', 'degraded_performance')],
    ]);
  });

  it('tells the component’s own status, which another open incident holds: a resolve may leave it degraded', async () => {
    const other = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Logins slow', description: 'Slow.', status: 'minor' } });
    t.clock.advance(HOUR);
    const major = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'API down', description: 'Down.', status: 'major' } });
    t.clock.advance(HOUR);
    await t.api('PATCH', `/api/v2/incidents/${major.body.data.id}`, { body: { resolution_stage: 'resolved', description: 'Up.' } });

    const byId = new Map<string, any>((await incidents()).map((i: any) => [i.id, i]));
    const code = byId.get(major.body.data.id).components[0].id;
    expect(affected(byId.get(major.body.data.id))).toEqual([
      ['resolved', api(code, 'major_outage', 'degraded_performance')],
      ['investigating', api(code, 'degraded_performance', 'major_outage')],
    ]);
    expect(affected(byId.get(other.body.data.id))).toEqual([['investigating', api(code, 'operational', 'degraded_performance')]]);
    await t.api('PATCH', `/api/v2/incidents/${other.body.data.id}`, { body: { resolution_stage: 'resolved', description: 'Up.' } });
  });

  it('claims no component state for an update whose states were never recorded (written before they were)', async () => {
    const opened = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Old one', description: 'Slow.', status: 'major' } });
    await t.ctx.write((trx) =>
      trx
        .updateTable('incident_updates')
        .set({ service_status_before: null, service_status_after: null })
        .where('incident_id', '=', Number(opened.body.data.id))
        .execute(),
    );
    const incident = (await incidents()).find((i: any) => i.id === opened.body.data.id);
    // Statuspage's own shape for an update that names no component.
    expect(affected(incident)).toEqual([['investigating', null]]);
  });
});
