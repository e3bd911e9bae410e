import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Which claim holds a row: only the holder of the current lease may renew it, mark the row or record its progress.
  await db.schema.alterTable('outbox').addColumn('lease_token', 'text').execute();
}
