import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GLOBEX_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { ALERTS_CONFIG, alertFixture, alertmanagerPayload, resolvedPayload } from './alert-fixtures.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ config: ALERTS_CONFIG });
});
afterAll(async () => {
  await s.stop();
});
beforeEach(() => {
  s.clock.set(T0);
});

const PATH = '/api/v2/alerts/alertmanager';

async function post(payload: unknown, key?: string): Promise<string[]> {
  const res = await s.api('POST', PATH, { body: payload, ...(key ? { key } : {}) });
  expect(res.status, res.text).toBe(202);
  expect(res.body.data.type).toBe('alert_batch');
  return res.body.data.attributes.incidents;
}

async function incident(id: string, key?: string) {
  const res = await s.api('GET', `/api/v2/incidents/${id}`, key ? { key } : {});
  expect(res.status, res.text).toBe(200);
  return res.body.data.attributes;
}

const notificationsOf = async (id: string) =>
  (await s.ctx.db.selectFrom('outbox').select(['event', 'payload']).orderBy('id').execute()).filter((r) => JSON.parse(r.payload).incident?.id === Number(id));

const auditOf = async (id: string) =>
  (await s.api('GET', '/api/v2/audit_events?limit=100')).body.data.filter((e: any) => e.attributes.target.type === 'incident' && e.attributes.target.id === id);

describe('POST /api/v2/alerts/alertmanager', () => {
  it('opens one incident for the documented payload, on the service its label names, titled by the summary, major for severity critical', async () => {
    const [id, ...more] = await post(alertmanagerPayload('{}:{alertname="HighErrorRate"}'));
    expect(more).toEqual([]);
    const attributes = await incident(id!);
    expect(attributes).toMatchObject({ title: 'High error rate on the Acme API', status: 'major', resolved: false, service_id: 1001, service: 'Acme API' });
    expect(attributes.description).toMatch(/^2 alerts firing:/);
    expect(attributes.description).toContain(
      'HighErrorRate (instance=api-1:9100, job=api, service=acme-api, severity=critical): High error rate on the Acme API',
    );
    expect(attributes.description).toContain('instance=api-2:9100');
    expect(attributes.updates).toEqual([{ status: 'investigating', created_at: T0, description: attributes.description }]);
    // As a change through the API: the page's webhook subscriber is told, the audit trail says who.
    expect((await notificationsOf(id!)).map((r) => r.event)).toEqual(['incident.created']);
    const audit = await auditOf(id!);
    expect(audit.map((e: any) => e.attributes.action)).toEqual(['incident.create']);
    expect(audit[0].attributes.actor).toMatch(/^api_key:\d+$/);
  });

  it('a repeated identical notification changes nothing', async () => {
    const payload = alertmanagerPayload('{}:{alertname="Repeat"}');
    const [id] = await post(payload);
    s.clock.advance(60_000);
    expect(await post(payload)).toEqual([id]);
    expect(await post(payload)).toEqual([id]);
    const attributes = await incident(id!);
    expect(attributes.updates).toHaveLength(1);
    expect(attributes.updated_at).toBe(T0);
    expect(await notificationsOf(id!)).toHaveLength(1);
    expect(await auditOf(id!)).toHaveLength(1);
  });

  it('a changed set of firing alerts adds an update listing those firing now', async () => {
    const payload = alertmanagerPayload('{}:{alertname="Changed"}');
    const [id] = await post(payload);
    s.clock.advance(60_000);
    const fewer = structuredClone(payload);
    fewer.alerts[1].status = 'resolved';
    expect(await post(fewer)).toEqual([id]);
    const attributes = await incident(id!);
    expect(attributes.resolved).toBe(false);
    expect(attributes.updates).toHaveLength(2);
    expect(attributes.description).toMatch(/^1 alert firing:/);
    expect(attributes.description).toContain('api-1:9100');
    expect(attributes.description).not.toContain('api-2:9100');
    expect((await notificationsOf(id!)).map((r) => r.event)).toEqual(['incident.created', 'incident.updated']);
  });

  it('resolves the incident once the group is resolved, and reopens it when it fires again', async () => {
    const payload = alertmanagerPayload('{}:{alertname="Flapping"}');
    const [id] = await post(payload);
    s.clock.advance(5 * 60_000);
    expect(await post(resolvedPayload(payload))).toEqual([id]);
    let attributes = await incident(id!);
    expect(attributes.resolved).toBe(true);
    expect(attributes.resolved_at).toBe('2026-11-22T10:07:00.000Z');
    expect(attributes.updates.at(-1)).toMatchObject({ status: 'resolved', description: 'All 2 alerts are resolved.' });
    // Resolved again: nothing more.
    expect(await post(resolvedPayload(payload))).toEqual([id]);
    s.clock.advance(5 * 60_000);
    expect(await post(payload)).toEqual([id]);
    attributes = await incident(id!);
    expect(attributes.resolved).toBe(false);
    expect(attributes.resolved_at).toBeNull();
    expect(attributes.updates.map((u: any) => u.status)).toEqual(['investigating', 'resolved', 'investigating']);
    expect((await notificationsOf(id!)).map((r) => r.event)).toEqual(['incident.created', 'incident.resolved', 'incident.reopened']);
  });

  it('one incident per group: other groups open their own', async () => {
    const [a] = await post(alertmanagerPayload('{}:{alertname="GroupA"}'));
    const [b] = await post(alertmanagerPayload('{}:{alertname="GroupB"}'));
    const [again] = await post(alertmanagerPayload('{}:{alertname="GroupA"}', (p) => p.alerts.pop()));
    expect(b).not.toBe(a);
    expect(again).toBe(a);
  });

  it('a resolved group never seen opens nothing', async () => {
    expect(await post(resolvedPayload(alertmanagerPayload('{}:{alertname="NeverFired"}')))).toEqual([]);
  });

  it('titles by alertname without a summary; minor without a paging severity; major for severity page', async () => {
    const warning = alertmanagerPayload('{}:{alertname="DiskFilling"}', (p) => {
      p.commonAnnotations = {};
      p.commonLabels = { alertname: 'DiskFilling', service: 'acme-web', severity: 'warning' };
      p.alerts = [{ ...p.alerts[0], labels: { alertname: 'DiskFilling', service: 'acme-web', severity: 'warning' }, annotations: {} }];
    });
    const [id] = await post(warning);
    expect(await incident(id!)).toMatchObject({ title: 'DiskFilling', status: 'minor', service_id: 1002 });
    const paging = structuredClone(warning);
    paging.groupKey = '{}:{alertname="Paging"}';
    paging.commonLabels.severity = 'page';
    paging.alerts[0].labels.severity = 'page';
    const [major] = await post(paging);
    expect((await incident(major!)).status).toBe('major');
  });

  it("maps Grafana's webhook payload by the company's label, and falls back on its default service", async () => {
    const grafana = alertFixture('grafana-webhook.json');
    const [id] = await post(grafana, GLOBEX_KEY);
    const attributes = await incident(id!, GLOBEX_KEY);
    expect(attributes).toMatchObject({ title: 'This alert was triggered for zone us-1', status: 'minor', service_id: 2002, service: 'Blue team' });
    expect(attributes.description).toMatch(/^2 alerts firing:/);
    expect(attributes.description).toContain('High CPU usage (team=blue, zone=eu-1): This alert was triggered for zone eu-1');

    const red = alertFixture('grafana-webhook.json');
    red.groupKey = '{}:{team="red"}';
    red.commonLabels = { team: 'red' };
    for (const alert of red.alerts) alert.labels.team = 'red';
    const [fallback] = await post(red, GLOBEX_KEY);
    expect((await incident(fallback!, GLOBEX_KEY)).service_id).toBe(2001);
    // Another company's incident stays out of sight.
    expect((await s.api('GET', `/api/v2/incidents/${fallback}`)).status).toBe(404);
  });

  it('refuses alerts whose label names no service of the company, without a default, with a 422 naming the label; nothing changes', async () => {
    const before = await s.ctx.db
      .selectFrom('incidents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const unlabelled = alertmanagerPayload('{}:{alertname="NoService"}', (p) => {
      delete p.commonLabels.service;
      for (const alert of p.alerts) delete alert.labels.service;
    });
    const res = await s.api('POST', PATH, { body: unlabelled });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].detail).toContain('label service');
    const unknown = alertmanagerPayload('{}:{alertname="OtherService"}', (p) => {
      p.commonLabels.service = 'payments';
      for (const alert of p.alerts) alert.labels.service = 'payments';
    });
    const named = await s.api('POST', PATH, { body: unknown });
    expect(named.status).toBe(422);
    expect(named.body.errors[0].detail).toContain('label service is "payments"');
    expect(named.body.errors[0].source).toEqual({ pointer: '/commonLabels/service' });
    // A service of another company is no service of Acme's.
    const globex = alertmanagerPayload('{}:{alertname="Globex"}', (p) => {
      p.commonLabels.service = 'globex-api';
      for (const alert of p.alerts) alert.labels.service = 'globex-api';
    });
    expect((await s.api('POST', PATH, { body: globex })).status).toBe(422);
    const after = await s.ctx.db
      .selectFrom('incidents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('refuses a payload that is not a notification with a 422 naming the field', async () => {
    const res = await s.api('POST', PATH, { body: { status: 'firing', alerts: [] } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: any) => e.detail)).toContain('groupKey is required');
    const wrong = await s.api('POST', PATH, { body: alertmanagerPayload('{}:{x="1"}', (p) => (p.status = 'burning')) });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].detail).toBe('status must be one of firing, resolved');
  });

  it('concurrent identical notifications open one incident', async () => {
    const payload = alertmanagerPayload('{}:{alertname="Stampede"}');
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(payload)));
    const ids = new Set(answers.flat());
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect((await incident(id!)).updates).toHaveLength(1);
    const titled = await s.ctx.db.selectFrom('alert_groups').select('incident_id').where('dedup_key', '=', payload.groupKey).execute();
    expect(titled.map((r) => String(r.incident_id))).toEqual([id]);
  });
});
