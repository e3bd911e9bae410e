import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../src/domain/model/company.js';
import { parseNotifyOn } from '../../src/domain/model/company.js';
import { DEMO_PERIOD_MS, OUTAGE_OVER, cycleSeverity, periodAt } from '../../src/domain/model/demo-cycle.js';
import { syncDemoServices } from '../../src/domain/demo/demo-services.js';
import { resolveIncident } from '../../src/domain/incidents/incident-service.js';
import { reportProblem } from '../../src/domain/vendors/user-reports.js';
import { applyVendorSnapshot } from '../../src/domain/vendors/vendor-ingest.js';
import type { VendorIncident, VendorSnapshot } from '../../src/domain/vendors/vendor-snapshot.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { dueFeedOf } from '../helpers/vendor-feed.js';

/*
 * Every source of incident changes goes through one pipeline: this table
 * makes a change from each source and checks each consequence a user would
 * see: the incident as stored, its service's change on the status page, the
 * messages queued for each destination, and the audit row.
 */

const CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
user_reports: { threshold: 1, window_minutes: 30, resolve_after_minutes: 60 }
services:
  - { urlname: vendor-x, name: Vendor X, feed: { kind: statuspage, url: "https://x.example" } }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    monitored_services: [vendor-x, demo-service]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    slack: { team_id: T-ACME }
    channels:
      - { slack: C-INCIDENTS, incidents: true }
      - { slack: C-SERVICES, services: [acme-api, acme-web, vendor-x, demo-service] }
    status_pages:
      - name: Acme status
        services: [acme-api, acme-web]
        subscribers:
          - { webhook: "https://hooks.acme.example/statusbot", secret: "0123456789abcdef0123" }
          - { email: "ops@acme.example" }
    notify:
      - { pagerduty: { routing_key: "R0UT1NGKEY0123456789" } }
`;

const MINUTE = 60_000;

let s: TestServer;
let acme: Company;
beforeAll(async () => {
  s = await startTestServer({ config: CONFIG });
  const row = await s.ctx.db.selectFrom('companies').selectAll().where('name', '=', 'Acme').executeTakeFirstOrThrow();
  acme = { id: row.id, name: row.name, plan: row.plan, notifyOn: parseNotifyOn(row.notify_on) };
});
afterAll(async () => {
  await s?.stop();
});

/** What one change left behind, by destination. */
interface Consequences {
  incident: { id: number; title: string; resolved: number } | undefined;
  pageUpdatedAt: number | undefined;
  webhooks: string[];
  emails: string[];
  /** Rows for the company's paging destinations (PagerDuty here). */
  pagers: string[];
  /** Announcements in the channel following the company's incidents, as `event source`. */
  companyChannel: string[];
  /** Announcements in the channel following the services, as `event source`. */
  serviceChannel: string[];
  /** Status-change messages, as `service from→to`. */
  statusChanges: string[];
  audit: { action: string; actor: string; company_id: number | null }[];
}

/** Runs `act` and collects the rows it queued and wrote; `incidentOf` picks the incident it changed. */
async function consequencesOf(act: () => Promise<unknown>, incidentOf: () => Promise<number | undefined>, page?: number): Promise<Consequences> {
  const db = s.ctx.db;
  const last = async (table: 'outbox' | 'audit_events') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst()
      )?.id ?? 0,
    );
  const outboxFrom = await last('outbox');
  const auditFrom = await last('audit_events');
  await act();
  const id = await incidentOf();
  const outbox = await db.selectFrom('outbox').selectAll().where('id', '>', outboxFrom).orderBy('id').execute();
  const payloads = outbox.map((r) => ({ ...r, body: JSON.parse(r.payload) }));
  const announcements = (channel: string) =>
    payloads.filter((r) => r.body.kind === 'incident' && r.body.channel?.channelId === channel).map((r) => `${r.event} ${r.body.source}`);
  return {
    incident: id === undefined ? undefined : await db.selectFrom('incidents').select(['id', 'title', 'resolved']).where('id', '=', id).executeTakeFirst(),
    pageUpdatedAt:
      page === undefined
        ? undefined
        : (await db.selectFrom('status_page_services').select('updated_at').where('service_id', '=', page).executeTakeFirstOrThrow()).updated_at,
    webhooks: payloads.filter((r) => r.stream.startsWith('subscriber:')).map((r) => r.event),
    emails: payloads.filter((r) => r.stream.startsWith('email:')).map((r) => r.event),
    pagers: payloads.filter((r) => r.stream.startsWith('pagerduty:')).map((r) => r.event),
    companyChannel: announcements('C-INCIDENTS'),
    serviceChannel: announcements('C-SERVICES'),
    statusChanges: payloads.filter((r) => r.body.kind === 'status_change').map((r) => `${r.body.service.urlname} ${r.body.from}→${r.body.to}`),
    audit: (await db.selectFrom('audit_events').select(['action', 'actor', 'company_id']).where('id', '>', auditFrom).orderBy('id').execute()).filter((a) =>
      a.action.startsWith('incident.'),
    ),
  };
}

const vendorFeed = () => dueFeedOf(s.ctx.db, 'vendor-x', 'https://x.example');

const vendorIncident = (resolved: boolean, id = 'p1', severity: 'minor' | 'major' = 'major'): VendorIncident => ({
  id,
  title: id === 'p1' ? 'Elevated API errors' : 'Slow dashboard',
  severity,
  severityFromProvider: severity,
  url: `https://x.example/incidents/${id}`,
  description: resolved ? 'Fixed.' : 'We are investigating.',
  components: ['API'],
  createdAt: s.clock.now(),
  updatedAt: s.clock.now(),
  resolved,
  resolvedAt: resolved ? s.clock.now() : null,
  updates: [
    { stage: 'investigating', description: 'We are investigating.', createdAt: s.clock.now() },
    ...(resolved ? [{ stage: 'resolved' as const, description: 'Fixed.', createdAt: s.clock.now() }] : []),
  ],
});

const ingest = async (incidents: VendorIncident[]) => {
  const snapshot: VendorSnapshot = { indicator: null, components: [], incidents, maintenances: [], skipped: [] };
  return applyVendorSnapshot(s.ctx.actingAs({ actor: 'job:feeds', requestId: null }), await vendorFeed(), snapshot, {
    validators: {},
    fingerprint: String(Math.random()),
    intervalMs: MINUTE,
  });
};

const vendorIncidentId = async () => (await s.ctx.db.selectFrom('incidents').select('id').where('external_key', 'like', 'vendor:%:p1').executeTakeFirst())?.id;
const latestIncident = async (serviceId: number) =>
  (await s.ctx.db.selectFrom('incidents').select('id').where('service_id', '=', serviceId).orderBy('id', 'desc').executeTakeFirst())?.id;

describe('every source of incident changes, through the one pipeline', () => {
  let apiIncident = 0;

  it('API: stored, shown on the page, told to subscribers and both channels, audited', async () => {
    s.clock.advance(MINUTE);
    const c = await consequencesOf(
      async () => {
        const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Checkout down', status: 'major' } });
        apiIncident = Number(res.body.data.id);
      },
      async () => apiIncident,
      1001,
    );
    expect(c.incident).toMatchObject({ title: 'Checkout down', resolved: 0 });
    expect(c.pageUpdatedAt).toBe(s.clock.now().getTime());
    expect(c.webhooks).toEqual(['incident.created']);
    expect(c.emails).toEqual(['incident.created']);
    expect(c.pagers).toEqual(['incident.created']);
    expect(c.companyChannel).toEqual(['incident.created company']);
    expect(c.serviceChannel).toEqual([]);
    expect(c.statusChanges).toEqual(['acme-api ok→major']);
    expect(c.audit).toEqual([{ action: 'incident.create', actor: expect.stringMatching(/^api_key:\d+$/), company_id: acme.id }]);
  });

  it('chat: the same consequences, as the chat user', async () => {
    s.clock.advance(MINUTE);
    const ctx = s.ctx.actingAs({ actor: 'slack:T-ACME/U1', requestId: null });
    const c = await consequencesOf(
      () => resolveIncident(ctx, acme, apiIncident, 'Fixed'),
      async () => apiIncident,
      1001,
    );
    expect(c.incident).toMatchObject({ title: 'Checkout down', resolved: 1 });
    expect(c.pageUpdatedAt).toBe(s.clock.now().getTime());
    expect(c.webhooks).toEqual(['incident.resolved']);
    expect(c.emails).toEqual(['incident.resolved']);
    expect(c.pagers).toEqual(['incident.resolved']);
    expect(c.companyChannel).toEqual(['incident.resolved company']);
    expect(c.serviceChannel).toEqual([]);
    expect(c.statusChanges).toEqual(['acme-api major→ok']);
    expect(c.audit).toEqual([{ action: 'incident.update', actor: 'slack:T-ACME/U1', company_id: acme.id }]);
  });

  it("vendor: stored, told to the service's followers with its status move, audited as the feed job; the first read is stored alone", async () => {
    // The first read stores what the feed shows, which was so before statusbot could see it change.
    const earlier = vendorIncident(false, 'p0', 'minor');
    s.clock.advance(MINUTE);
    const first = await consequencesOf(() => ingest([earlier]), vendorIncidentId);
    expect(first).toMatchObject({ incident: undefined, serviceChannel: [], statusChanges: [], audit: [] });
    expect(await s.ctx.db.selectFrom('incidents').select('title').where('external_key', 'like', 'vendor:%:p0').execute()).toEqual([
      { title: 'Slow dashboard' },
    ]);

    s.clock.advance(MINUTE);
    const opened = await consequencesOf(() => ingest([earlier, vendorIncident(false)]), vendorIncidentId);
    expect(opened.incident).toMatchObject({ title: 'Elevated API errors', resolved: 0 });
    expect(opened.webhooks).toEqual([]);
    expect(opened.emails).toEqual([]);
    expect(opened.pagers).toEqual([]);
    expect(opened.companyChannel).toEqual([]);
    expect(opened.serviceChannel).toEqual(['incident.created vendor']);
    expect(opened.statusChanges).toEqual(['vendor-x minor→major']);
    expect(opened.audit).toEqual([{ action: 'incident.create', actor: 'job:feeds', company_id: null }]);

    s.clock.advance(MINUTE);
    const resolved = await consequencesOf(() => ingest([earlier, vendorIncident(true)]), vendorIncidentId);
    expect(resolved.incident).toMatchObject({ resolved: 1 });
    expect(resolved.serviceChannel).toEqual(['incident.resolved vendor']);
    expect(resolved.statusChanges).toEqual(['vendor-x major→minor']);
    expect(resolved.audit).toEqual([{ action: 'incident.update', actor: 'job:feeds', company_id: null }]);
  });

  it("user reports: stored unconfirmed, told only to the service's followers (never to subscribers), moving no status, audited", async () => {
    s.clock.advance(MINUTE);
    const ctx = s.ctx.actingAs({ actor: 'slack:T-ACME/U2', requestId: null });
    const c = await consequencesOf(
      () => reportProblem(ctx, acme, 'acme-web', 'slack:T-ACME:U2', {}),
      () => latestIncident(1002),
      1002,
    );
    expect(c.incident).toMatchObject({ title: 'Users report problems with Acme Web', resolved: 0 });
    expect(c.pageUpdatedAt).toBe(s.clock.now().getTime());
    expect(c.webhooks).toEqual([]);
    expect(c.emails).toEqual([]);
    expect(c.pagers).toEqual([]);
    expect(c.companyChannel).toEqual([]);
    expect(c.serviceChannel).toEqual(['incident.created users']);
    expect(c.statusChanges).toEqual([]);
    expect(c.audit).toEqual([{ action: 'incident.create', actor: 'slack:T-ACME/U2', company_id: acme.id }]);
  });

  it('alerts: the same consequences as the API, made on behalf of the key that posted the alert', async () => {
    s.clock.advance(MINUTE);
    let id = 0;
    const c = await consequencesOf(
      async () => {
        const res = await s.api('POST', '/api/v2/alerts', {
          body: { dedup_key: 'disk-db1', action: 'trigger', service_id: 1002, title: 'Disk full on db1', status: 'major' },
        });
        expect(res.status).toBe(202);
        id = Number(res.body.data.attributes.incidents[0]);
      },
      async () => id,
      1002,
    );
    expect(c.incident).toMatchObject({ title: 'Disk full on db1', resolved: 0 });
    expect(c.pageUpdatedAt).toBe(s.clock.now().getTime());
    expect(c.webhooks).toEqual(['incident.created']);
    expect(c.emails).toEqual(['incident.created']);
    expect(c.pagers).toEqual(['incident.created']);
    expect(c.companyChannel).toEqual(['incident.created company']);
    expect(c.serviceChannel).toEqual([]);
    expect(c.statusChanges).toEqual(['acme-web ok→major']);
    expect(c.audit).toEqual([{ action: 'incident.create', actor: expect.stringMatching(/^api_key:\d+$/), company_id: acme.id }]);
  });

  it('demo: outages written ahead are stored, told to nobody and not audited (nobody changed them); followers hear the status move', async () => {
    // The first period from now with an outage whose next period has none.
    let k = periodAt(s.clock.now().getTime()) + 1;
    while (!cycleSeverity(k) || cycleSeverity(k + 1)) k++;
    const severity = cycleSeverity(k)!;
    const demoService = await s.ctx.db.selectFrom('services').select('id').where('urlname', '=', 'demo-service').executeTakeFirstOrThrow();
    s.clock.set(new Date(k * DEMO_PERIOD_MS));
    await syncDemoServices(s.ctx);
    s.clock.set(new Date((k + 1) * DEMO_PERIOD_MS));
    const c = await consequencesOf(
      () => syncDemoServices(s.ctx.actingAs({ actor: 'job:demo', requestId: null })),
      async () =>
        (
          await s.ctx.db
            .selectFrom('incidents')
            .select('id')
            .where('service_id', '=', demoService.id)
            .where('created_at', '=', k * DEMO_PERIOD_MS)
            .executeTakeFirst()
        )?.id,
    );
    expect(c.incident).toMatchObject({ resolved: 1 });
    expect(c.webhooks).toEqual([]);
    expect(c.pagers).toEqual([]);
    expect(c.companyChannel).toEqual([]);
    expect(c.serviceChannel).toEqual([]);
    expect(c.statusChanges).toEqual([`demo-service ${severity}→ok`]);
    expect(c.audit).toEqual([]);
    const [told] = (await s.ctx.db.selectFrom('outbox').select('payload').where('event', '=', 'service.status_changed').orderBy('id', 'desc').execute()).map(
      (r) => JSON.parse(r.payload),
    );
    expect(told.cause).toBe(OUTAGE_OVER);
  });
});
