import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A page's services in the config's order, and the group (heading) each is shown under.
  await db.schema
    .alterTable('status_page_services')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('status_page_services').addColumn('group_name', 'text').execute();
  // Addresses that unsubscribed from a page through a mail's link, as a digest: `apply` does not sign them up again.
  await db.schema
    .createTable('email_suppressions')
    .addColumn('status_page_id', 'bigint', (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('address_digest', 'text', (c) => c.notNull())
    .addColumn('suppressed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('email_suppressions_pk', ['status_page_id', 'address_digest'])
    .execute();
}
