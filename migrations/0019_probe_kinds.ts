import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { isPostgres } from './engine.js';

const OLD_KINDS = "probe_type in ('ping', 'keyword')";
const KINDS = "probe_type in ('ping', 'keyword', 'tcp', 'dns', 'tls', 'heartbeat')";

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table custom_monitors drop constraint custom_monitors_probe_type_check`.execute(db);
    await sql.raw(`alter table custom_monitors add constraint custom_monitors_probe_type_check check (${KINDS})`).execute(db);
  } else {
    await widenCheckOnSqlite(db);
  }
  await db.schema.alterTable('custom_monitors').addColumn('dns_record', 'text').execute();
  await db.schema.alterTable('custom_monitors').addColumn('dns_expect', 'text').execute();
  await db.schema.alterTable('custom_monitors').addColumn('dns_server', 'text').execute();
  await db.schema.alterTable('custom_monitors').addColumn('days_before_expiry', 'bigint').execute();
  await db.schema.alterTable('custom_monitors').addColumn('grace_seconds', 'bigint').execute();
  // The heartbeat's secret push token, kept across applies so that cron jobs keep their address.
  await db.schema.alterTable('custom_monitors').addColumn('heartbeat_token', 'text').execute();
  await db.schema.alterTable('custom_monitors').addColumn('last_heartbeat_at', 'bigint').execute();
  await db.schema.createIndex('custom_monitors_heartbeat_token').unique().on('custom_monitors').column('heartbeat_token').execute();
}

/**
 * SQLite cannot alter a CHECK: the table is rebuilt as SQLite documents it
 * (foreign keys off, so that dropping the old table does not cascade to the
 * monitors' incidents and probe hours), from its own stored definition.
 */
async function widenCheckOnSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  const { rows } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
  if (rows[0]?.foreign_keys !== 0) throw new Error('foreign keys could not be turned off (inside a transaction?); custom_monitors is left as it was');
  try {
    await db.transaction().execute(async (trx) => {
      const schema = await sql<{
        type: string;
        sql: string;
      }>`select type, sql from sqlite_schema where tbl_name = 'custom_monitors' and sql is not null`.execute(trx);
      const table = schema.rows.find((r) => r.type === 'table')!.sql;
      if (!table.includes(OLD_KINDS)) throw new Error('custom_monitors does not have the expected probe_type check');
      const indexes = schema.rows.filter((r) => r.type === 'index').map((r) => r.sql);
      const sequence = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'custom_monitors'`.execute(trx);
      await sql.raw(table.replace(OLD_KINDS, KINDS).replace(/^CREATE TABLE\s+"?custom_monitors"?/i, 'CREATE TABLE "custom_monitors_widened"')).execute(trx);
      await sql`insert into custom_monitors_widened select * from custom_monitors`.execute(trx);
      await sql`drop table custom_monitors`.execute(trx);
      await sql`alter table custom_monitors_widened rename to custom_monitors`.execute(trx);
      for (const index of indexes) await sql.raw(index).execute(trx);
      // Ids given by config are kept clear of (see afterGivenIds): the sequence carries over.
      const seq = sequence.rows[0]?.seq;
      if (seq !== undefined) await sql`update sqlite_sequence set seq = ${seq} where name = 'custom_monitors'`.execute(trx);
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error('the rebuilt custom_monitors breaks foreign keys');
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
