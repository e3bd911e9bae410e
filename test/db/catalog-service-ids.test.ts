import { Migrator, sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isPostgres } from '../../migrations/engine.js';
import { migrations } from '../../migrations/index.js';
import { ConfigError, parseConfig } from '../../src/config/load-config.js';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { DEMO_SERVICES } from '../../src/domain/demo/demo-services.js';
import { VENDOR_CATALOG } from '../../src/config/vendor-catalog.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { T0, startTestServer } from '../helpers/test-server.js';

const KEY = 'acme-key-ids-1';
const withCustom = (ids: number[]) =>
  `companies:\n  - name: Acme\n    plan: business\n    api_keys: ["${KEY}"]\n    custom_services:\n${ids.map((id) => `      - { id: ${id}, name: Acme ${id}, urlname: acme-${id} }\n`).join('')}`;
const github = VENDOR_CATALOG.find((v) => v.urlname === 'github')!;

let databases: TestDatabase[] = [];
beforeEach(() => {
  databases = [];
});
afterEach(async () => {
  for (const d of databases) await d.drop();
});
async function database(migrated = true): Promise<TestDatabase> {
  const d = await createTestDatabase({ migrated });
  databases.push(d);
  return d;
}

/** The catalog as GET /api/v2/services lists it: urlname → id. */
async function listedIds(config: string, dbPath: string): Promise<Map<string, string>> {
  const s = await startTestServer({ config, dbPath });
  try {
    const res = await s.api('GET', '/api/v2/services', { key: KEY });
    expect(res.status).toBe(200);
    return new Map((res.body.data as { id: string; attributes: { urlname: string } }[]).map((d) => [d.attributes.urlname, d.id]));
  } finally {
    await s.stop();
  }
}

describe('custom service ids beside the catalog', () => {
  it('a config with services 1001-1003 applies, and then one that adds 1004 applies too', async () => {
    const { path } = await database();
    await (await startTestServer({ config: withCustom([1001, 1002, 1003]), dbPath: path })).stop();
    const s = await startTestServer({ config: withCustom([1001, 1002, 1003, 1004]), dbPath: path });
    try {
      const created = await s.api('POST', '/api/v2/incidents', { key: KEY, body: { service_id: 1004, title: 'On the new one' } });
      expect(created.status).toBe(201);
      expect(created.body.data.attributes).toMatchObject({ service_id: 1004, service: 'Acme 1004' });
    } finally {
      await s.stop();
    }
  });

  it("lists a vendor under the id of the catalog file on every install, whatever the config's custom services", async () => {
    const one = await listedIds(withCustom([1001, 1002, 1003]), (await database()).path);
    const other = await listedIds(withCustom([7]), (await database()).path);
    expect(one.get('github')).toBe(String(github.id));
    expect(other.get('github')).toBe(String(github.id));
    expect(one.get('demo-service')).toBe('100001');
    expect(Object.fromEntries(one)).toEqual(Object.fromEntries(other));
    for (const v of VENDOR_CATALOG) expect(one.get(v.urlname), v.urlname).toBe(String(v.id));
  });

  it("refuses a custom service id in the catalog's range, naming the range, at its line", () => {
    const text = withCustom([1001, 100_000]);
    expect(() => parseConfig('acme.yml', text)).toThrow(ConfigError);
    expect(() => parseConfig('acme.yml', text)).toThrow(
      'acme.yml:7:15: companies[0].custom_services[1].id must be from 1 to 99999 (ids from 100000 up belong to the catalog)',
    );
  });
});

describe('clash messages of a config applied on a database that holds the id', () => {
  const applyFails = async (dbPath: string, config: string): Promise<string> => {
    const error = await startTestServer({ config, dbPath }).then(
      async (s) => {
        await s.stop();
        return null;
      },
      (e: unknown) => e as Error,
    );
    expect(error, 'the config was applied').not.toBeNull();
    return error!.message;
  };

  it('name the company and the item that holds a service id, a monitor id, a board id or a status page slug', async () => {
    const { path } = await database();
    const demo = `companies:
  - name: Demo
    api_keys: ["demo-key-ids-1"]
    custom_services:
      - { id: 9001, name: Demo API, urlname: demo-api }
    custom_monitors:
      - { id: 9001, name: statusbot health, url: "http://127.0.0.1:9/healthz", probe_type: ping }
    boards:
      - { id: 00000000-0000-4000-8000-000000000001, name: Demo services, urlname: demo }
    status_pages:
      - { name: Demo status, slug: demo }
`;
    await (await startTestServer({ config: demo, dbPath: path })).stop();
    const other = (entry: string) => `companies:\n  - name: Globex\n    ${entry}\n`;
    expect(await applyFails(path, other('custom_services: [{ id: 9001, name: Globex API, urlname: globex-api }]'))).toContain(
      'service id 9001 is already taken by "Demo API" of the company Demo',
    );
    expect(await applyFails(path, other('custom_services: [{ id: 42, name: Globex API, urlname: demo-api }]'))).toContain(
      'urlname demo-api is already taken by "Demo API" of the company Demo',
    );
    expect(await applyFails(path, other('custom_services: [{ id: 42, name: Globex API, urlname: github }]'))).toContain(
      'urlname github is already taken by the catalog vendor "GitHub"',
    );
    expect(await applyFails(path, other('custom_monitors: [{ id: 9001, name: Up, url: "http://127.0.0.1:9/", probe_type: ping }]'))).toContain(
      'monitor id 9001 is already taken by "statusbot health" of the company Demo',
    );
    expect(await applyFails(path, other('boards: [{ id: 00000000-0000-4000-8000-000000000001, name: Mine, urlname: mine }]'))).toContain(
      'board id 00000000-0000-4000-8000-000000000001 is already taken by "Demo services" of the company Demo',
    );
    expect(await applyFails(path, other('status_pages: [{ name: Globex status, slug: demo }]'))).toContain(
      'the status page slug demo is already taken by "Demo status" of the company Demo',
    );
  });
});

// ---------------------------------------------------------------------------
// A database numbered as before 0015: catalog services took the next ids after the custom ones.

const at = Date.parse(T0);

async function migratedTo0014(db: Db): Promise<void> {
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo('0014_drop_page_service_status');
  if (error) throw error;
}

/** A company and its custom services at the ids its config gave them, as the old apply wrote them. */
async function oldCustom(db: Db, company: string, services: { id: number; urlname: string }[]): Promise<number> {
  const { id } = await db
    .insertInto('companies')
    .values({ name: company, plan: 'business', notify_on: '[]', created_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const s of services) {
    await db
      .insertInto('services')
      .values({ id: s.id, urlname: s.urlname, name: s.urlname, status_page_url: null, company_id: id, demo: null, created_at: at })
      .execute();
  }
  if (isPostgres(db as Kysely<unknown>)) {
    await sql`select setval(pg_get_serial_sequence('services', 'id'), coalesce(max(id), 0) + 1, false) from services`.execute(db);
  }
  return id;
}

/** The demo services and the catalog, numbered by the database after the custom services, as the old apply did; urlname → id. */
async function oldCatalog(db: Db): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const rows = [
    ...DEMO_SERVICES.map((d) => ({ urlname: d.urlname, name: d.name, demo: d.demo, feed_kind: null, feed_url: null })),
    ...VENDOR_CATALOG.map((v) => ({ urlname: v.urlname, name: v.name, demo: null, feed_kind: v.feed.kind, feed_url: v.feed.url })),
    { urlname: 'acme-cloud', name: 'Acme Cloud', demo: null, feed_kind: null, feed_url: null },
  ];
  for (const r of rows) {
    const { id } = await db
      .insertInto('services')
      .values({ ...r, status_page_url: null, company_id: null, created_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.set(r.urlname, id);
    if (r.feed_kind) await db.insertInto('vendor_feeds').values({ service_id: id }).execute();
  }
  return ids;
}

async function seedOld(db: Db, customs: { company: string; services: { id: number; urlname: string }[] }[]) {
  await migratedTo0014(db);
  const companies: number[] = [];
  for (const c of customs) companies.push(await oldCustom(db, c.company, c.services));
  const old = await oldCatalog(db);
  const gh = old.get('github')!;
  const companyId = companies[0]!;
  // A vendor incident, keyed by the service's id, with its update.
  const incident = await db
    .insertInto('incidents')
    .values({
      service_id: gh,
      title: 'Degraded Actions',
      status: 'minor',
      description: 'Investigating',
      resolved: 0,
      url: null,
      severity_from_provider: 'minor',
      external_key: `vendor:${gh}:inc-1`,
      created_at: at,
      updated_at: at,
      resolved_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.insertInto('incident_updates').values({ incident_id: incident.id, stage: 'investigating', description: 'Investigating', created_at: at }).execute();
  await db.insertInto('company_monitored_services').values({ company_id: companyId, service_id: gh }).execute();
  await db
    .insertInto('maintenance_windows')
    .values({ service_id: gh, starts_at: at, ends_at: at + 3_600_000 })
    .execute();
  await db.insertInto('user_reports').values({ service_id: gh, reporter: 'api_key:1', component: null, description: 'slow', created_at: at }).execute();
  await db.updateTable('vendor_feeds').set({ indicator: 'minor', last_checked_at: at }).where('service_id', '=', gh).execute();
  const board = '5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01';
  await db.insertInto('boards').values({ id: board, company_id: companyId, name: 'Vendors', urlname: 'vendors', created_at: at }).execute();
  await db.insertInto('board_services').values({ board_id: board, service_id: gh, tags: '["ci"]', position: 1, created_at: at }).execute();
  await db
    .insertInto('channel_subscriptions')
    .values({
      company_id: companyId,
      platform: 'slack',
      workspace_id: 'T1',
      channel_id: 'C1',
      kind: 'service',
      service_id: gh,
      target_key: `service:${gh}`,
      created_at: at,
    })
    .execute();
  await db
    .insertInto('audit_events')
    .values({
      at,
      company_id: companyId,
      actor: 'slack:T1/U1',
      action: 'channel_subscription.subscribe',
      target_type: 'channel_subscription',
      target_id: `slack:C1/service:${gh}`,
      changes: '{}',
    })
    .execute();
  const announcement = { kind: 'status_change', channel: { platform: 'slack', channelId: 'C1' }, service: { id: gh, name: 'GitHub', urlname: 'github' } };
  for (const state of ['pending', 'sent'] as const) {
    await db
      .insertInto('outbox')
      .values({
        company_id: companyId,
        subscriber_id: null,
        stream: 'slack:C1',
        event: 'status_change',
        payload: JSON.stringify(announcement),
        state,
        next_attempt_at: at,
        created_at: at,
      })
      .execute();
  }
  return { old, incidentId: incident.id };
}

describe('migration 0015 on a database numbered as before', () => {
  it('moves every catalog service to its fixed id with all that refers to it; custom services keep theirs, and 1004 can then be given', async () => {
    const d = await database(false);
    const db = openDatabase({ path: d.path });
    let incidentId: number;
    try {
      const seeded = await seedOld(db, [{ company: 'Acme', services: [1001, 1002, 1003].map((id) => ({ id, urlname: `acme-${id}` })) }]);
      const old = seeded.old;
      incidentId = seeded.incidentId;
      expect(old.get('demo-service')).toBe(1004);
      await migrateToLatest(db);

      const services = await db.selectFrom('services').select(['id', 'urlname', 'company_id']).execute();
      const byUrlname = new Map(services.map((s) => [s.urlname, s.id]));
      for (const s of services.filter((s) => s.company_id !== null)) expect(s.id).toBe(Number(s.urlname.slice('acme-'.length)));
      for (const demo of DEMO_SERVICES) expect(byUrlname.get(demo.urlname)).toBe(demo.id);
      for (const v of VENDOR_CATALOG) expect(byUrlname.get(v.urlname), v.urlname).toBe(v.id);
      expect(byUrlname.get('acme-cloud')).toBe(900_000);
      expect(services).toHaveLength(3 + DEMO_SERVICES.length + VENDOR_CATALOG.length + 1);

      const gh = github.id;
      expect(await db.selectFrom('incidents').select(['id', 'service_id', 'external_key']).execute()).toEqual([
        { id: incidentId, service_id: gh, external_key: `vendor:${gh}:inc-1` },
      ]);
      expect(await db.selectFrom('incident_updates').select('incident_id').execute()).toEqual([{ incident_id: incidentId }]);
      for (const table of ['company_monitored_services', 'maintenance_windows', 'user_reports', 'board_services', 'channel_subscriptions'] as const) {
        expect(await db.selectFrom(table).select('service_id').execute(), table).toEqual([{ service_id: gh }]);
      }
      expect(await db.selectFrom('vendor_feeds').select(['indicator']).where('service_id', '=', gh).execute()).toEqual([{ indicator: 'minor' }]);
      expect(await db.selectFrom('vendor_feeds').select('service_id').execute()).toHaveLength(VENDOR_CATALOG.length);
      expect(await db.selectFrom('channel_subscriptions').select('target_key').execute()).toEqual([{ target_key: `service:${gh}` }]);
      expect(await db.selectFrom('audit_events').select('target_id').execute()).toEqual([{ target_id: `slack:C1/service:${gh}` }]);
      const outbox = await db.selectFrom('outbox').select(['state', 'payload']).orderBy('id').execute();
      expect(outbox.map((r) => [r.state, JSON.parse(r.payload).service.id])).toEqual([
        ['pending', gh],
        ['sent', old.get('github')],
      ]);
    } finally {
      await db.destroy();
    }

    // What the user tried: 1004 is free now.
    const s = await startTestServer({ config: withCustom([1001, 1002, 1003, 1004]), dbPath: d.path });
    try {
      expect((await s.api('POST', '/api/v2/incidents', { key: KEY, body: { service_id: 1004, title: 'Works' } })).status).toBe(201);
      const vendor = await s.api('GET', `/api/v2/incidents/${incidentId}`, { key: KEY });
      expect(vendor.status).toBe(200);
      expect(vendor.body.data.attributes).toMatchObject({ service_id: github.id, service: 'GitHub', title: 'Degraded Actions' });
    } finally {
      await s.stop();
    }
  });

  it('leaves a custom service on the fixed id of a vendor; that vendor takes the next free id from 900,000', async () => {
    const d = await database(false);
    const db = openDatabase({ path: d.path });
    try {
      // Globex gave its service GitHub's future id; the catalog was numbered after it, over other vendors' future ids.
      const { old, incidentId } = await seedOld(db, [
        { company: 'Acme', services: [{ id: 1001, urlname: 'acme-1001' }] },
        { company: 'Globex', services: [{ id: github.id, urlname: 'globex-api' }] },
      ]);
      expect(old.get('demo-service')).toBe(github.id + 1);
      const custom = await db
        .insertInto('incidents')
        .values({ service_id: github.id, title: 'Ours', status: 'major', description: '', resolved: 0, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      await migrateToLatest(db);

      const services = await db.selectFrom('services').select(['id', 'urlname']).execute();
      const byUrlname = new Map(services.map((s) => [s.urlname, s.id]));
      expect(byUrlname.get('globex-api')).toBe(github.id);
      expect(byUrlname.get('acme-1001')).toBe(1001);
      expect(byUrlname.get('github')).toBe(900_000);
      expect(byUrlname.get('acme-cloud')).toBe(900_001);
      for (const v of VENDOR_CATALOG.filter((v) => v.urlname !== 'github')) expect(byUrlname.get(v.urlname), v.urlname).toBe(v.id);
      for (const demo of DEMO_SERVICES) expect(byUrlname.get(demo.urlname)).toBe(demo.id);
      expect(await db.selectFrom('incidents').select(['id', 'service_id', 'external_key']).orderBy('id').execute()).toEqual([
        { id: incidentId, service_id: 900_000, external_key: 'vendor:900000:inc-1' },
        { id: custom.id, service_id: github.id, external_key: null },
      ]);
      expect(await db.selectFrom('board_services').select('service_id').execute()).toEqual([{ service_id: 900_000 }]);
    } finally {
      await db.destroy();
    }
  });

  it('changes nothing on a database numbered the new way', async () => {
    const d = await database();
    await (await startTestServer({ config: withCustom([1001]), dbPath: d.path })).stop();
    const db = openDatabase({ path: d.path });
    try {
      const before = await db.selectFrom('services').select(['id', 'urlname']).orderBy('id').execute();
      await migrations['0015_fixed_catalog_ids']!.up(db);
      expect(await db.selectFrom('services').select(['id', 'urlname']).orderBy('id').execute()).toEqual(before);
    } finally {
      await db.destroy();
    }
  });
});
