import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per job slot (e.g. "digests@2026-11-22T09:00:00.000Z"): the process that holds it runs the slot.
  await db.schema
    .createTable('job_leases')
    .addColumn('slot', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('job_leases_expiry').on('job_leases').column('expires_at').execute();
}
