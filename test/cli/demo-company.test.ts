import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as auditEvents from '../../migrations/0010_audit_events.js';
import * as notifyDestinations from '../../migrations/0022_notify_destinations.js';
import { migrations } from '../../migrations/index.js';
import { parseConfig } from '../../src/config/load-config.js';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { manualClock } from '../../src/domain/clock.js';
import { createDomainContext } from '../../src/domain/context.js';
import { applySetup } from '../../src/domain/setup/apply-setup.js';
import { documentedConfigs } from '../helpers/docs.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { README_EXAMPLE_CONFIG, T0, startTestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { runCli, startCli } from './run-cli.js';

// A config with `demo: false` removes the demo company (test/docs/tour.test.ts follows the README there).
const README_CONFIGS = [README_EXAMPLE_CONFIG, ...documentedConfigs().map((b) => b.yaml)].filter((yaml) => !/^demo: false$/m.test(yaml));

let dir: string;
let database: TestDatabase;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-demo-'));
  database = await createTestDatabase({ migrated: false });
});
afterEach(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

const getIds = async (base: string, path: string, key: string) => {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { data: { id: string }[] }).data.map((d) => d.id);
};

describe("the README's example config after a first start (npm start)", () => {
  it('applies cleanly beside the demo company, which keeps working; a second start says how to get a key', async () => {
    const first = startCli(['serve', '--port', '0', '--db', database.path], { cwd: dir });
    // The key follows the start line, which a first start (every migration, then the demo company) may take a while to print.
    await first.listening();
    const key = await waitUntil(() => /^ {2}(sb_\S+)$/m.exec(first.out.stdout)?.[1], { what: 'the demo key' });
    expect((await first.stop()).code).toBe(0);

    for (const [i, config] of README_CONFIGS.entries()) {
      const file = join(dir, `example-${i}.yml`);
      writeFileSync(file, config);
      const res = await runCli(['apply', '--config', file, '--db', database.path], { cwd: dir });
      expect(res.code, `${res.stderr}\n${config}`).toBe(0);
    }

    const second = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', database.path], { cwd: dir });
    try {
      const base = (await second.listening()).url;
      const hint = await waitUntil(() => /No API key is shown.*\n {2}(statusbot key create .*)\n/.exec(second.out.stdout), { what: 'the key hint' });
      expect(hint[0]).toContain('already holds companies Demo, Acme');
      expect(hint[1]).toBe(`statusbot key create --company NAME --db ${database.path.startsWith('postgres') ? '<the same postgres:// URL>' : database.path}`);
      expect(await getIds(base, '/api/v2/custom_monitors', key)).toEqual(['9001']);
      expect(await getIds(base, '/api/v2/custom_monitors', 'acme-key-1')).toEqual(['501', '502']);
      const incident = await fetch(`${base}/api/v2/incidents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service_id: 9001, title: 'Demo', status: 'minor', description: 'on the demo API' }),
      });
      expect(incident.status).toBe(201);
    } finally {
      expect((await second.stop()).code).toBe(0);
    }
    expect(second.out.stderr).toBe('');
  });

  it('a second start on a database with the demo company alone names it in the command to run', async () => {
    const s = await startTestServer({ dbPath: database.path, config: '' });
    await s.stop().catch(() => undefined);
    const again = startCli(['serve', '--port', '0', '--db', database.path], { cwd: dir });
    try {
      await again.listening();
      await waitUntil(() => again.out.stdout.includes('key create'), { what: 'the key hint' });
      expect(again.out.stdout).toContain('this database already holds the company Demo. A new key:\n  statusbot key create --company Demo --db ');
      expect(again.out.stdout).not.toContain('curl');
    } finally {
      await again.stop();
    }
  });
});

/** The demo company as the first start of earlier versions seeded it (ids 1001 and 501), with data that refers to them. */
const OLD_DEMO = `
companies:
  - name: Demo
    plan: business
    api_keys: ["demo-key-from-before"]
    custom_services:
      - { id: 1001, name: Demo API, urlname: demo-api }
    custom_monitors:
      - { id: 501, name: statusbot health, url: "http://localhost:8080/healthz", probe_type: ping }
    boards:
      - { id: 00000000-0000-4000-8000-000000000001, name: Demo services, urlname: demo, services: [{ urlname: demo-service, tags: [demo] }] }
    slack: { team_id: T-DEMO }
    channels:
      - { slack: C-DEMO, services: [demo-api], monitors: [501] }
`;

async function seedBefore0009(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo('0008_public_pages');
  if (error) throw error;
  // Today's setup writes its audit rows and reads a company's paging destinations, which the schema of 0008 has
  // no tables for yet: they are lent meanwhile.
  await auditEvents.up(db as unknown as Kysely<unknown>);
  await notifyDestinations.up(db as unknown as Kysely<unknown>);
  // And the columns later migrations add to what it writes (0017: the service a monitor watches; 0019: the probe
  // kinds' settings; 0020: a company's quorum of regions; 0021: its alert settings; 0023: its incident rooms).
  const lent = [
    ['custom_monitors', 'service_id', 'bigint'],
    ['custom_monitors', 'dns_record', 'text'],
    ['custom_monitors', 'dns_expect', 'text'],
    ['custom_monitors', 'dns_server', 'text'],
    ['custom_monitors', 'days_before_expiry', 'bigint'],
    ['custom_monitors', 'grace_seconds', 'bigint'],
    ['custom_monitors', 'heartbeat_token', 'text'],
    ['custom_monitors', 'last_heartbeat_at', 'bigint'],
    ['companies', 'alert_service_label', 'text'],
    ['companies', 'alert_default_service_id', 'bigint'],
    ['companies', 'region_quorum', 'bigint'],
    ['companies', 'incident_channels', 'bigint'],
  ] as const;
  for (const [table, column, type] of lent) await db.schema.alterTable(table).addColumn(column, type).execute();
  const ctx = createDomainContext({ db, clock: manualClock(T0), publicUrl: 'http://localhost:8080' });
  await applySetup(ctx, parseConfig('old.yml', OLD_DEMO).config.setup);
  for (const table of ['audit_events', 'notify_messages', 'notify_destinations']) await db.schema.dropTable(table).execute();
  for (const [table, column] of lent) await db.schema.alterTable(table).dropColumn(column).execute();
  const at = Date.parse(T0);
  // The page as 0008 stored it (its services carried a status then).
  const company = await db.selectFrom('companies').select('id').where('name', '=', 'Demo').executeTakeFirstOrThrow();
  const page = await sql<{ id: number }>`insert into status_pages (company_id, name, url, created_at, updated_at, slug, monitors)
    values (${company.id}, 'Demo status', 'http://localhost:8080/status/demo-status', ${at}, ${at}, 'demo-status', '[501]') returning id`
    .execute(db)
    .then((r) => r.rows[0]!);
  await sql`insert into status_page_services (status_page_id, service_id, status, updated_at) values (${page.id}, 1001, 'ok', ${at})`.execute(db);
  await db
    .insertInto('email_subscribers')
    .values({ status_page_id: page.id, email: 'ops@demo.example', state: 'confirmed', origin: 'form', services: '[1001]', created_at: at })
    .execute();
  await db
    .insertInto('incidents')
    .values({ service_id: 1001, title: 'Old', status: 'major', description: 'before', resolved: 0, created_at: at, updated_at: at })
    .execute();
  await db.insertInto('monitor_incidents').values({ monitor_id: 501, description: 'down', resolved: 0, created_at: at, updated_at: at }).execute();
  await db.insertInto('probe_hours').values({ monitor_id: 501, hour: at, probes: 60, ups: 59, total_ms: 600, max_ms: 30 }).execute();
}

describe('a database whose demo company holds the ids of the README example', () => {
  it('moves them to 9001 with everything that refers to them, and then takes the example', async () => {
    const db = openDatabase({ path: database.path });
    try {
      await seedBefore0009(db);
      await migrateToLatest(db);
      expect(await db.selectFrom('services').select(['id', 'urlname']).where('company_id', 'is not', null).execute()).toEqual([
        { id: 9001, urlname: 'demo-api' },
      ]);
      expect(await db.selectFrom('custom_monitors').select('id').execute()).toEqual([{ id: 9001 }]);
      expect(await db.selectFrom('incidents').select('service_id').execute()).toEqual([{ service_id: 9001 }]);
      expect(await db.selectFrom('monitor_incidents').select('monitor_id').execute()).toEqual([{ monitor_id: 9001 }]);
      expect(await db.selectFrom('probe_hours').select('monitor_id').execute()).toEqual([{ monitor_id: 9001 }]);
      expect(await db.selectFrom('status_page_services').select('service_id').execute()).toEqual([{ service_id: 9001 }]);
      expect(await db.selectFrom('status_pages').select('monitors').execute()).toEqual([{ monitors: '[9001]' }]);
      expect(await db.selectFrom('email_subscribers').select('services').execute()).toEqual([{ services: '[9001]' }]);
      const follows = await db.selectFrom('channel_subscriptions').select(['target_key', 'service_id', 'monitor_id']).orderBy('target_key').execute();
      expect(follows).toEqual([
        { target_key: 'monitor:9001', service_id: null, monitor_id: 9001 },
        { target_key: 'service:9001', service_id: 9001, monitor_id: null },
      ]);

      const ctx = createDomainContext({ db, clock: manualClock(T0), publicUrl: 'http://localhost:8080' });
      await applySetup(ctx, parseConfig('readme.yml', README_EXAMPLE_CONFIG).config.setup);
      // Generated ids go on after the moved ones (PostgreSQL's sequence too).
      const added = await applySetup(ctx, parseConfig('more.yml', 'services:\n  - { urlname: brand-new, name: Brand new }\n').config.setup);
      expect(added.services).toBeGreaterThan(0);
      const fresh = await db.selectFrom('services').select('id').where('urlname', '=', 'brand-new').executeTakeFirstOrThrow();
      expect(fresh.id).toBeGreaterThan(9001);
    } finally {
      await db.destroy();
    }

    const s = await startTestServer({ dbPath: database.path, config: '' });
    try {
      expect(await getIds(s.url, '/api/v2/custom_monitors', 'demo-key-from-before')).toEqual(['9001']);
      expect(await getIds(s.url, '/api/v2/custom_monitors/9001/incidents', 'demo-key-from-before')).toHaveLength(1);
      expect((await s.api('GET', '/api/v2/services/demo-api/incidents', { key: 'demo-key-from-before' })).body.data).toHaveLength(1);
      expect(await getIds(s.url, '/api/v2/custom_monitors', 'acme-key-1')).toEqual(['501', '502']);
    } finally {
      await s.stop();
    }
  });
});
