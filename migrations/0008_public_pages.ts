import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { withId } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A page is served at {public_url}/status/{slug}; `host` is its own host when its url has one (served at / there).
  await db.schema.alterTable('status_pages').addColumn('slug', 'text').execute();
  await db.schema.alterTable('status_pages').addColumn('host', 'text').execute();
  // JSON lists: catalog services shown live beside the company's own, and custom monitors by id.
  await db.schema
    .alterTable('status_pages')
    .addColumn('third_party', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('status_pages')
    .addColumn('monitors', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await sql`update status_pages set slug = 'page-' || id`.execute(db);
  await db.schema.createIndex('status_pages_slug').on('status_pages').column('slug').unique().execute();

  // Email subscribers of a page: `pending` until the link in the confirmation mail is followed (those the config
  // names are confirmed); `services`: JSON list of the service ids followed, null for all the page shows.
  await withId(db, db.schema.createTable('email_subscribers'))
    .addColumn('status_page_id', 'bigint', (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'confirmed')`))
    .addColumn('origin', 'text', (c) => c.notNull().check(sql`origin in ('config', 'form')`))
    .addColumn('services', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('confirmed_at', 'bigint')
    .addUniqueConstraint('email_subscribers_page_email', ['status_page_id', 'email'])
    .execute();

  // Probe results of each custom monitor, rolled up per hour (kept 90 days): a chart costs the same however long the history.
  await db.schema
    .createTable('probe_hours')
    .addColumn('monitor_id', 'bigint', (c) => c.notNull().references('custom_monitors.id').onDelete('cascade'))
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('probes', 'bigint', (c) => c.notNull())
    .addColumn('ups', 'bigint', (c) => c.notNull())
    .addColumn('total_ms', 'bigint', (c) => c.notNull())
    .addColumn('max_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('probe_hours_pk', ['monitor_id', 'hour'])
    .execute();
}
