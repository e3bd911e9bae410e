import { Migrator, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';

let database: TestDatabase;
let db: Db;
beforeEach(async () => {
  database = await createTestDatabase({ migrated: false });
  db = openDatabase({ path: database.path });
});
afterEach(async () => {
  await db.destroy();
  await database.drop();
});

describe('migration 0019 (probe kinds)', () => {
  it('keeps every monitor with its incidents, probe hours and subscriptions, and takes the new kinds only', async () => {
    const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo('0018_page_layout_and_suppressions');
    if (error) throw error;
    const at = 1_790_000_000_000;
    const company = await sql<{ id: number }>`insert into companies (name, plan, notify_on, created_at) values ('Acme', 'business', '[]', ${at}) returning id`
      .execute(db)
      .then((r) => r.rows[0]!.id);
    await sql`insert into custom_monitors (id, company_id, name, url, probe_type, keyword, interval_seconds, status, created_at, updated_at)
      values (501, ${company}, 'Homepage', 'https://acme.example', 'ping', null, 60, 'down', ${at}, ${at})`.execute(db);
    await db
      .insertInto('monitor_incidents')
      .values({ monitor_id: 501, description: 'Down in local: HTTP 503', resolved: 0, created_at: at, updated_at: at })
      .execute();
    await db.insertInto('probe_hours').values({ monitor_id: 501, hour: at, probes: 60, ups: 59, total_ms: 600, max_ms: 30 }).execute();

    await migrateToLatest(db);

    expect(await db.selectFrom('custom_monitors').select(['id', 'name', 'probe_type', 'status']).execute()).toEqual([
      { id: 501, name: 'Homepage', probe_type: 'ping', status: 'down' },
    ]);
    expect(await db.selectFrom('monitor_incidents').select('description').execute()).toEqual([{ description: 'Down in local: HTTP 503' }]);
    expect(await db.selectFrom('probe_hours').select('probes').execute()).toEqual([{ probes: 60 }]);
    const insert = (id: number, kind: string) =>
      sql`insert into custom_monitors (id, company_id, name, url, probe_type, interval_seconds, status, created_at, updated_at)
        values (${id}, ${company}, 'New', '', ${kind}, 60, 'ok', ${at}, ${at})`.execute(db);
    for (const [i, kind] of ['tcp', 'dns', 'tls', 'heartbeat'].entries()) await insert(600 + i, kind);
    await expect(insert(700, 'smtp')).rejects.toThrow(/check/i);
    // Foreign keys still hold on the rebuilt table: deleting a monitor takes its incidents along.
    await db.deleteFrom('custom_monitors').where('id', '=', 501).execute();
    expect(await db.selectFrom('monitor_incidents').select('id').execute()).toEqual([]);
  });
});
