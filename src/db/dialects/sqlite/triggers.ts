import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.js';
import { UNCACHED_TABLES, UNNOTED_TABLES } from '../../write-effects.js';

/** The row whose generation the triggers move (see change-feed.ts). */
export const GENERATION_TABLE = 'statusbot_generation';
const TRIGGER = 'statusbot_changed';

/**
 * SQLite's counterpart of PostgreSQL's change triggers. data_version moves with
 * every commit of another connection, delivery's bookkeeping included, which
 * on two processes sharing a file made every cached read and page be read
 * and rendered again throughout a drain. A trigger on every table but
 * UNCACHED_TABLES and UNNOTED_TABLES moves a generation in the database, by
 * whatever writes it (another statusbot, the CLI, a sqlite3 shell), so a
 * process reads the generation when data_version moved and keeps its caches
 * when it did not. Applied at every start, after the migrations, for every
 * table they created.
 */
export async function noteChanges(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`create table if not exists ${sql.table(GENERATION_TABLE)} (id integer primary key check (id = 1), generation integer not null)`.execute(trx);
    await sql`insert or ignore into ${sql.table(GENERATION_TABLE)} (id, generation) values (1, 0)`.execute(trx);
    const { rows: tables } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(trx);
    // A trigger follows its table when a migration renames it: made only where it is on the table it is named after.
    const { rows: triggers } = await sql<{ name: string; tbl_name: string }>`select name, tbl_name from sqlite_master where type = 'trigger'`.execute(trx);
    const made = new Set<string>();
    for (const t of triggers) {
      if (t.name.startsWith(`${TRIGGER}_${t.tbl_name}_`)) made.add(t.name);
      else if (t.name.startsWith(`${TRIGGER}_`)) await sql`drop trigger ${sql.id(t.name)}`.execute(trx);
    }
    for (const { name: table } of tables) {
      const wanted = table !== GENERATION_TABLE && !UNNOTED_TABLES.includes(table) && !UNCACHED_TABLES.includes(table);
      for (const event of ['insert', 'update', 'delete'] as const) {
        const trigger = `${TRIGGER}_${table}_${event}`;
        if (made.has(trigger) && !wanted) await sql`drop trigger ${sql.id(trigger)}`.execute(trx);
        if (made.has(trigger) || !wanted) continue;
        await sql`create trigger ${sql.id(trigger)} after ${sql.raw(event)} on ${sql.table(table)}
          begin update ${sql.table(GENERATION_TABLE)} set generation = generation + 1 where id = 1; end`.execute(trx);
      }
    }
  });
}
