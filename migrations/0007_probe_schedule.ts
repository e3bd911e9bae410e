import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // When a monitor's next probe is due: the process that moves it on probes, so replicas probe each monitor once per interval.
  await db.schema
    .alterTable('custom_monitors')
    .addColumn('next_probe_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
