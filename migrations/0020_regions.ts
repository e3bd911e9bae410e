import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A monitor of the company is down when at least this many regions see it down.
  await db.schema
    .alterTable('companies')
    .addColumn('region_quorum', 'bigint', (c) => c.notNull().defaultTo(1))
    .execute();
  // A probe agent's token is an API key that names the agent's region; it opens the agent's endpoints only.
  await db.schema.alterTable('api_keys').addColumn('agent_region', 'text').execute();

  // The latest result of each monitor in each region: what the quorum counts, and the latency pages show.
  await db.schema
    .createTable('monitor_regions')
    .addColumn('monitor_id', 'bigint', (c) => c.notNull().references('custom_monitors.id').onDelete('cascade'))
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('consecutive_failures', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('reason', 'text')
    .addColumn('latency_ms', 'double precision')
    .addColumn('checked_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('monitor_regions_pk', ['monitor_id', 'region'])
    .execute();

  // Kept apart from api_keys: a report moves no key's cached authentication.
  await db.schema
    .createTable('agent_reports')
    .addColumn('key_id', 'bigint', (c) => c.primaryKey().references('api_keys.id').onDelete('cascade'))
    .addColumn('last_report_at', 'bigint', (c) => c.notNull())
    .addColumn('dropped', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
