import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // probe_hours split by the region that probed: what the monitor page charts per region.
  // probe_hours stays the combined series, so that pages read one row per hour whatever the number of regions.
  await db.schema
    .createTable('probe_region_hours')
    .addColumn('monitor_id', 'bigint', (c) => c.notNull().references('custom_monitors.id').onDelete('cascade'))
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('probes', 'bigint', (c) => c.notNull())
    .addColumn('ups', 'bigint', (c) => c.notNull())
    .addColumn('total_ms', 'bigint', (c) => c.notNull())
    .addColumn('max_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('probe_region_hours_pk', ['monitor_id', 'region', 'hour'])
    .execute();
}
