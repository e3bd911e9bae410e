import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Pages read a service's status live; the copy kept here was written at every change and read by nothing.
  await db.schema.alterTable('status_page_services').dropColumn('status').execute();
}
