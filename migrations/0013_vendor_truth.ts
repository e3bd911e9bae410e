import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // After this time without a successful read, the vendor's status is no longer known: shown as "No data".
  await db.schema.alterTable('vendor_feeds').addColumn('stale_at', 'bigint').execute();
  // What the last read left out of the feed's documents (items it could not read), as JSON: ["…"]; null when nothing.
  await db.schema.alterTable('vendor_feeds').addColumn('skipped', 'text').execute();
  // The maintenances the feed lists (scheduled or under way), as JSON: [{ id, name, startsAt, endsAt, status, components, url }].
  await db.schema
    .alterTable('vendor_feeds')
    .addColumn('maintenances', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}
