import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { assertBuilt, CLI, ROOT, runCli } from './run-cli.js';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';

/**
 * The previous release's schema: every migration before the fixed catalog ids
 * (which move services' ids) and the maintenances (which add tables), so the
 * upgrade both moves ids and makes tables that a rollback must undo.
 */
const PREVIOUS_RELEASE = '0014_drop_page_service_status';
const ALL = Object.keys(migrations).sort();
const BEFORE = ALL.slice(0, ALL.indexOf(PREVIOUS_RELEASE) + 1);
const ADDED = ALL.slice(BEFORE.length);

/** The docs' example database, and where the docs keep the SQLite files. */
const DOCS_URL = 'postgres://statusbot@127.0.0.1/statusbot';
const DOCS_DIR = '/var/lib/statusbot/';

/**
 * The commands of the "## <section>" code blocks of docs/operations.md for one
 * engine: the lines after its `# SQLite…` or `# PostgreSQL…` comment, up to the
 * next comment or the next step for both (`npm …`, `systemctl …`).
 */
function documentedCommands(section: string, engine: 'SQLite' | 'PostgreSQL'): string[] {
  const page = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const body = page.split(`\n## ${section}\n`)[1]?.split('\n## ')[0] ?? '';
  const lines = [...body.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
  const start = lines.findIndex((l) => l.startsWith(`# ${engine}`));
  if (start === -1) throw new Error(`docs/operations.md, ${section}: no "# ${engine}" commands`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => l.startsWith('#') || /^(npm|systemctl) /.test(l) || l === '');
  return rest.slice(0, end === -1 ? undefined : end);
}

/** Runs a documented command as written, on this test's database and files instead of the docs' examples. */
function runDocumented(line: string, dir: string, dbPath: string): void {
  const command = line
    .replace(/^sudo -u statusbot /, '')
    .replace(/^statusbot /, `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} `)
    .replaceAll(DOCS_URL, dbPath)
    .replaceAll(`${DOCS_DIR}statusbot.db`, dbPath)
    .replaceAll(DOCS_DIR, `${dir}/`);
  execFileSync('sh', ['-c', command], { cwd: dir, stdio: 'pipe', env: { ...process.env, PGCONNECT_TIMEOUT: '10' } });
}

/** Every row of every table, as the database holds them: what a rollback must bring back. */
async function contents(path: string): Promise<Record<string, string[]>> {
  const db = openDatabase({ path });
  try {
    const tables =
      TEST_ENGINE === 'postgres'
        ? await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public' order by 1`.execute(db)
        : await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by 1`.execute(db);
    const all: Record<string, string[]> = {};
    for (const { name } of tables.rows) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
      all[name] = rows.map((r) => JSON.stringify(r)).sort();
    }
    return all;
  } finally {
    await db.destroy();
  }
}

/** The previous release's database in use: a company, a catalog service (whose id the upgrade moves), a custom one, incidents. */
async function previousReleaseWithData(path: string): Promise<void> {
  const db = openDatabase({ path });
  try {
    await migrateToLatest(db, { upTo: PREVIOUS_RELEASE });
    const at = Date.parse('2026-11-20T10:00:00Z');
    await sql`insert into companies (id, name, plan, notify_on, created_at) values (1, 'Northwind', 'business', 'all', ${at})`.execute(db);
    await sql`insert into services (id, urlname, name, company_id, created_at) values (5, 'github', 'GitHub', null, ${at})`.execute(db);
    await sql`insert into services (id, urlname, name, company_id, created_at) values (7, 'northwind-api', 'Northwind API', 1, ${at})`.execute(db);
    for (const [id, serviceId, title] of [
      [11, 5, 'Git operations degraded'],
      [12, 7, 'Checkout errors'],
    ] as const) {
      await sql`insert into incidents (id, service_id, title, status, description, resolved, created_at, updated_at)
        values (${id}, ${serviceId}, ${title}, 'major', '', 0, ${at}, ${at})`.execute(db);
    }
  } finally {
    await db.destroy();
  }
}

let dir: string;
let database: TestDatabase | null = null;
let dbPath: string;

beforeEach(async () => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'statusbot-rollback-'));
  if (TEST_ENGINE === 'postgres') {
    database = await createTestDatabase({ migrated: false });
    dbPath = database.path;
  } else {
    dbPath = join(dir, 'statusbot.db');
  }
});
afterEach(async () => {
  await database?.drop();
  database = null;
  rmSync(dir, { recursive: true, force: true });
});

describe('rolling back an upgrade as docs/operations.md says', () => {
  const engine = TEST_ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite';

  it(`brings back the data of before the upgrade on ${engine}, and the upgrade runs again`, async () => {
    await previousReleaseWithData(dbPath);
    const before = await contents(dbPath);
    expect(before.kysely_migration).toHaveLength(BEFORE.length);

    for (const line of documentedCommands('Upgrading', engine)) runDocumented(line, dir, dbPath);
    const upgrade = await runCli(['migrate', '--db', dbPath], { cwd: dir });
    expect(upgrade).toMatchObject({ code: 0, stdout: `applied ${ADDED.join(', ')}\n` });
    const upgraded = await contents(dbPath);
    expect(upgraded.maintenances).toBeDefined();
    expect(upgraded).not.toEqual(before);

    for (const line of documentedCommands('Rolling back', engine)) runDocumented(line, dir, dbPath);
    expect(await contents(dbPath)).toEqual(before);

    const again = await runCli(['migrate', '--db', dbPath], { cwd: dir });
    expect(again).toMatchObject({ code: 0, stdout: `applied ${ADDED.join(', ')}\n`, stderr: '' });
    const twice = await contents(dbPath);
    expect(Object.keys(twice)).toEqual(Object.keys(upgraded));
    for (const table of ['companies', 'services', 'incidents']) expect(twice[table]).toEqual(upgraded[table]);
  });
});
