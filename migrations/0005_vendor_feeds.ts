import type { Kysely } from 'kysely';
import { withId } from './engine.js';
import { sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A catalog service may have a status feed (Statuspage, RSS, Atom, Google Cloud, Instatus) that statusbot reads.
  await db.schema.alterTable('services').addColumn('feed_kind', 'text').execute();
  await db.schema.alterTable('services').addColumn('feed_url', 'text').execute();
  // 1: polled even when nobody watches the service.
  await db.schema
    .alterTable('services')
    .addColumn('poll_always', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  // What statusbot last read from a service's feed, and when it reads it next.
  await db.schema
    .createTable('vendor_feeds')
    .addColumn('service_id', 'bigint', (c) => c.primaryKey().references('services.id').onDelete('cascade'))
    // The status the feed states (ok, minor, major, maintenance); null while unread, or for feeds that state none.
    .addColumn('indicator', 'text', (c) => c.check(sql`indicator in ('ok', 'minor', 'major', 'maintenance')`))
    // The vendor's components and their status, as JSON: [{ name, status }].
    .addColumn('components', 'text', (c) => c.notNull().defaultTo('[]'))
    // Validators of the last answers, per document: { url: { etag, last_modified } }.
    .addColumn('validators', 'text', (c) => c.notNull().defaultTo('{}'))
    // A digest of the last snapshot applied: an unchanged read writes nothing but its time.
    .addColumn('fingerprint', 'text')
    // 1 once the first snapshot was applied (silently).
    .addColumn('ingested', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_checked_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'bigint')
    .addColumn('failures', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('next_poll_at', 'bigint', (c) => c.notNull().defaultTo(0))
    // The process reading the feed now holds it until then.
    .addColumn('lease_until', 'bigint')
    .execute();
  await db.schema.createIndex('vendor_feeds_due').on('vendor_feeds').column('next_poll_at').execute();

  // One report of a problem with a service, by one reporter (an API key or a chat user).
  await withId(db, db.schema.createTable('user_reports'))
    .addColumn('service_id', 'bigint', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('reporter', 'text', (c) => c.notNull())
    .addColumn('component', 'text')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_reports_service').on('user_reports').columns(['service_id', 'created_at']).execute();
}
