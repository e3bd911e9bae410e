import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../../schema.js';
import { KEY_TABLES, UNCACHED_TABLES, UNNOTED_TABLES } from '../../write-effects.js';
import { CHANGES_CHANNEL, KEYS_CHANGED_PREFIX, UNCACHED_CHANGE_PREFIX } from './change-feed.js';

const TRIGGER = 'statusbot_note_change';
/** Named to fire before TRIGGER (triggers on one event fire in the order of their names): its notification comes first. */
const KEYS_TRIGGER = 'statusbot_keys_change';
/** Tells commits of UNCACHED_TABLES with UNCACHED_CHANGE_PREFIX (see write-effects.ts). */
const UNCACHED_TRIGGER = 'statusbot_note_uncached';

/**
 * PostgreSQL's counterpart of SQLite's total_changes and data_version: every
 * statement that writes a table (but those of UNNOTED_TABLES) notifies CHANGES_CHANNEL with its transaction's id, delivered to
 * every replica's ChangeFeed when the transaction commits (several
 * notifications of one transaction are delivered as one). Applied at every
 * start, after the migrations, for every table they created.
 */
export async function noteChanges(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Replicas starting together take turns.
    await sql`select pg_advisory_xact_lock(hashtext(${TRIGGER}))`.execute(trx);
    // One function for both triggers: the keys trigger passes the prefix of its notification (see KEYS_CHANGED_PREFIX).
    await sql`
      create or replace function ${sql.raw(TRIGGER)}() returns trigger language plpgsql as $$
      begin
        perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, coalesce(TG_ARGV[0], '') || txid_current()::text);
        return null;
      end $$`.execute(trx);
    const exists = (trigger: string) => sql<boolean>`exists (select 1 from information_schema.triggers g
      where g.event_object_table = t.table_name and g.event_object_schema = t.table_schema and g.trigger_name = ${trigger})`;
    const { rows } = await sql<{ table_name: string; noted: boolean; keyed: boolean; counted: boolean; uncached: boolean }>`
      select t.table_name, ${exists(TRIGGER)} as noted, ${exists(KEYS_TRIGGER)} as keyed, ${exists('statusbot_count_change')} as counted,
        ${exists(UNCACHED_TRIGGER)} as uncached
      from information_schema.tables t
      where t.table_schema = current_schema() and t.table_type = 'BASE TABLE'`.execute(trx);
    // Triggers are made only where missing: one made anew would take its table's lock while other replicas serve.
    for (const { table_name: table, noted, keyed, counted, uncached } of rows) {
      // Databases made before replicas listened kept a counter row instead.
      if (counted) await sql`drop trigger statusbot_count_change on ${sql.table(table)}`.execute(trx);
      if (!keyed && KEY_TABLES.includes(table)) {
        await sql`create trigger ${sql.raw(KEYS_TRIGGER)} after insert or update or delete or truncate on ${sql.table(table)}
          for each statement execute function ${sql.raw(TRIGGER)}(${sql.lit(KEYS_CHANGED_PREFIX)})`.execute(trx);
      }
      if (!uncached && UNCACHED_TABLES.includes(table)) {
        await sql`create trigger ${sql.raw(UNCACHED_TRIGGER)} after insert or update or delete or truncate on ${sql.table(table)}
          for each statement execute function ${sql.raw(TRIGGER)}(${sql.lit(UNCACHED_CHANGE_PREFIX)})`.execute(trx);
      }
      const wanted = !UNNOTED_TABLES.includes(table) && !UNCACHED_TABLES.includes(table);
      if (noted && !wanted) await sql`drop trigger ${sql.raw(TRIGGER)} on ${sql.table(table)}`.execute(trx);
      if (noted || !wanted) continue;
      await sql`create trigger ${sql.raw(TRIGGER)} after insert or update or delete or truncate on ${sql.table(table)}
        for each statement execute function ${sql.raw(TRIGGER)}()`.execute(trx);
    }
  });
}
