import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpsgenie } from '../fakes/fake-opsgenie.js';
import type { FakeOpsgenie } from '../fakes/fake-opsgenie.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { acmeConfig, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { alertmanagerPayload } from '../alerts/alert-fixtures.js';

const GENIE_KEY = 'eb243592-faa2-4ba2-a551q-1afdf565c889';
const FAST = { enabled: true, baseDelayMs: 20, maxDelayMs: 80, pollMs: 10 } as const;

let opsgenie: FakeOpsgenie;
let database: TestDatabase;
let s: TestServer;

beforeEach(async () => {
  [opsgenie, database] = await Promise.all([startFakeOpsgenie(GENIE_KEY), createTestDatabase()]);
  const company = `    notify:\n      - { opsgenie: { api_key: "${GENIE_KEY}", url: "${opsgenie.url}" } }`;
  s = await startTestServer({ config: acmeConfig({ company }), dbPath: database.path, delivery: FAST });
});
afterEach(async () => {
  await s?.stop();
  await opsgenie.close();
  await database.drop();
});

const allSent = async (count: number) => {
  const rows = await s.ctx.db.selectFrom('outbox').select('state').where('stream', 'like', 'opsgenie:%').execute();
  return rows.length === count && rows.every((r) => r.state === 'sent');
};
const calls = () => opsgenie.received.map((c) => `${c.method} ${c.path.replace(/\?.*/, '')}`);

describe('Opsgenie priority follows the severity', () => {
  it('a minor incident raised to major gets its alert set to P1, by alias, besides the note', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Slow', status: 'minor' } });
    const id = Number(created.body.data.id);
    const alias = `statusbot-${id}`;
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { status: 'major', description: 'Now failing', resolution_stage: 'identified' } });
    await waitUntil(() => allSent(2), { what: 'the open and the raise told' });
    expect(calls()).toEqual(['POST /v2/alerts', `PUT /v2/alerts/${alias}/priority`, `POST /v2/alerts/${alias}/notes`]);
    const put = opsgenie.received[1]!;
    expect(put.path).toBe(`/v2/alerts/${alias}/priority?identifierType=alias`);
    expect(put.headers.authorization).toBe(`GenieKey ${GENIE_KEY}`);
    expect(put.json).toEqual({ priority: 'P1' });
    expect(opsgenie.alerts.get(alias)).toMatchObject({ priority: 'P1', notes: ['Identified: Now failing'], closed: false });
  });

  it('an update that leaves the severity as it was sets no priority, so one set by hand at Opsgenie stays', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Slow', status: 'minor' } });
    const id = Number(created.body.data.id);
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Looking', resolution_stage: 'identified' } });
    await waitUntil(() => allSent(2));
    expect(calls()).toEqual(['POST /v2/alerts', `POST /v2/alerts/statusbot-${id}/notes`]);
    // Lowered again: P3 once more.
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { status: 'major' } });
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { status: 'minor' } });
    await waitUntil(() => allSent(4));
    expect(opsgenie.received.filter((c) => c.method === 'PUT').map((c) => c.json.priority)).toEqual(['P1', 'P3']);
    expect(opsgenie.alerts.get(`statusbot-${id}`)!.priority).toBe('P3');
  });

  it('a refused priority is retried with its note, and the note is added once', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Slow', status: 'minor' } });
    const id = Number(created.body.data.id);
    await waitUntil(() => allSent(1));
    opsgenie.failNext(1, { status: 503, body: { message: 'unavailable' } });
    const raised = await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { status: 'major', description: 'Worse', resolution_stage: 'identified' } });
    expect(raised.status, raised.text).toBe(200);
    await waitUntil(() => allSent(2), { what: 'the raise told after the retry' });
    expect(opsgenie.requests.filter((c) => c.method === 'PUT')).toHaveLength(2);
    expect(opsgenie.alerts.get(`statusbot-${id}`)).toMatchObject({ priority: 'P1', notes: ['Identified: Worse'] });
  });

  it('an Alertmanager group that gains a critical alert raises its alert to P1', async () => {
    const warning = alertmanagerPayload('{}:{alertname="Errors"}', (p) => {
      p.commonLabels.severity = 'warning';
      p.alerts = [{ ...p.alerts[0], labels: { ...p.alerts[0].labels, severity: 'warning' } }];
    });
    const first = await s.api('POST', '/api/v2/alerts/alertmanager', { body: warning });
    expect(first.status, first.text).toBe(202);
    const [id] = first.body.data.attributes.incidents;
    await waitUntil(() => allSent(1));
    expect(opsgenie.alerts.get(`statusbot-${id}`)!.priority).toBe('P3');
    const critical = alertmanagerPayload('{}:{alertname="Errors"}', (p) => {
      delete p.commonLabels.severity;
      p.alerts[0].labels.severity = 'warning';
    });
    expect((await s.api('POST', '/api/v2/alerts/alertmanager', { body: critical })).status).toBe(202);
    await waitUntil(() => allSent(2), { what: 'the raise told' });
    expect(opsgenie.alerts.get(`statusbot-${id}`)!.priority).toBe('P1');
  });
});
