import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { parseConfig } from '../../src/config/load-config.js';
import { openDatabase } from '../../src/db/database.js';
import { hashApiKey } from '../../src/domain/companies/api-keys.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { manualClock } from '../../src/domain/clock.js';
import { createDomainContext } from '../../src/domain/context.js';
import { applySetup } from '../../src/domain/setup/apply-setup.js';
import { DOCUMENTED_ENV, documentedConfigs } from '../helpers/docs.js';
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
    const key = await waitUntil(() => /"demo_api_key":"(sb_[^"]+)"/.exec(first.out.stdout)?.[1], { what: 'the demo key' });
    expect((await first.stop()).code).toBe(0);

    for (const [i, config] of README_CONFIGS.entries()) {
      const file = join(dir, `example-${i}.yml`);
      writeFileSync(file, config);
      const res = await runCli(['apply', '--config', file, '--db', database.path], { cwd: dir, env: DOCUMENTED_ENV });
      expect(res.code, `${res.stderr}\n${config}`).toBe(0);
    }

    const second = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', database.path], { cwd: dir });
    try {
      const base = (await second.listening()).url;
      const line = await waitUntil(() => second.out.stdout.split('\n').find((l) => l.includes('No API key is shown')), { what: 'the key hint' });
      const hint = JSON.parse(line) as { msg: string; command: string };
      expect(hint.msg).toContain('already holds companies Demo, Acme');
      expect(hint.command).toBe(
        `statusbot key create --company NAME --db ${database.path.startsWith('postgres') ? '<the same postgres:// URL>' : database.path}`,
      );
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
      expect(again.out.stdout).toContain('this database already holds the company Demo. A new key: statusbot key create --company Demo --db ');
      expect(again.out.stdout).not.toContain('curl');
    } finally {
      await again.stop();
    }
  });
});

/**
 * The demo company as the first start of earlier versions seeded it (its custom service 1001, its monitor 501, a key,
 * a Slack channel following both), with a page, a subscriber and history that refer to them: written as the schema
 * of migration 0008 holds it, statement by statement, so that no later change of the setup or the schema moves it.
 */
async function seedBefore0009(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo('0008_public_pages');
  if (error) throw error;
  const at = Date.parse(T0);
  const one = <T>(rows: { rows: T[] }) => rows.rows[0]!;
  const company = one(
    await sql<{ id: number }>`insert into companies (name, plan, notify_on, created_at)
      values ('Demo', 'business', '["created","updated","resolved","reopened","deleted"]', ${at}) returning id`.execute(db),
  ).id;
  await sql`insert into api_keys (company_id, key_hash, label, created_at) values (${company}, ${hashApiKey('demo-key-from-before')}, 'config', ${at})`.execute(
    db,
  );
  await sql`insert into services (id, urlname, name, company_id, created_at) values (1001, 'demo-api', 'Demo API', ${company}, ${at})`.execute(db);
  await sql`insert into custom_monitors (id, company_id, name, url, probe_type, interval_seconds, status, consecutive_failures, created_at, updated_at)
    values (501, ${company}, 'statusbot health', 'http://localhost:8080/healthz', 'ping', 60, 'ok', 0, ${at}, ${at})`.execute(db);
  await sql`insert into chat_links (platform, workspace_id, company_id, created_at) values ('slack', 'T-DEMO', ${company}, ${at})`.execute(db);
  await sql`insert into channel_subscriptions (company_id, platform, workspace_id, channel_id, kind, service_id, monitor_id, target_key, created_at)
    values (${company}, 'slack', 'T-DEMO', 'C-DEMO', 'service', 1001, null, 'service:1001', ${at}),
           (${company}, 'slack', 'T-DEMO', 'C-DEMO', 'monitor', null, 501, 'monitor:501', ${at})`.execute(db);
  // The page as 0008 stored it (its services carried a status then).
  const page = one(
    await sql<{ id: number }>`insert into status_pages (company_id, name, url, created_at, updated_at, slug, monitors)
      values (${company}, 'Demo status', 'http://localhost:8080/status/demo-status', ${at}, ${at}, 'demo-status', '[501]') returning id`.execute(db),
  ).id;
  await sql`insert into status_page_services (status_page_id, service_id, status, updated_at) values (${page}, 1001, 'ok', ${at})`.execute(db);
  await sql`insert into email_subscribers (status_page_id, email, state, origin, services, created_at)
    values (${page}, 'ops@demo.example', 'confirmed', 'form', '[1001]', ${at})`.execute(db);
  await sql`insert into incidents (service_id, title, status, description, resolved, created_at, updated_at)
    values (1001, 'Old', 'major', 'before', 0, ${at}, ${at})`.execute(db);
  await sql`insert into monitor_incidents (monitor_id, description, resolved, created_at, updated_at) values (501, 'down', 0, ${at}, ${at})`.execute(db);
  await sql`insert into probe_hours (monitor_id, hour, probes, ups, total_ms, max_ms) values (501, ${at}, 60, 59, 600, 30)`.execute(db);
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
