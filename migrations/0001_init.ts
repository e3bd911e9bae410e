import type { Kysely } from 'kysely';
import { withId } from './engine.js';
import { sql } from 'kysely';

// Timestamps are integer milliseconds since the epoch (UTC); JSON arrays are stored as text.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('companies'))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('free', 'business')`))
    .addColumn('notify_on', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('api_keys'))
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  // company_id null: the third-party catalog; otherwise a custom service owned by that company.
  await withId(db, db.schema.createTable('services'))
    .addColumn('urlname', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status_page_url', 'text')
    .addColumn('company_id', 'bigint', (c) => c.references('companies.id').onDelete('cascade'))
    .addColumn('demo', 'text', (c) => c.check(sql`demo in ('cycle', 'ok', 'minor', 'major')`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('services_company').on('services').column('company_id').execute();

  await withId(db, db.schema.createTable('maintenance_windows'))
    .addColumn('service_id', 'bigint', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('starts_at', 'bigint', (c) => c.notNull())
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('maintenance_windows_service').on('maintenance_windows').columns(['service_id', 'ends_at']).execute();

  await db.schema
    .createTable('company_monitored_services')
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('service_id', 'bigint', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('company_monitored_services_pk', ['company_id', 'service_id'])
    .execute();

  await withId(db, db.schema.createTable('incidents'))
    .addColumn('service_id', 'bigint', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('minor', 'major')`))
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('resolved', 'bigint', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('user_generated', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('severity_from_provider', 'text')
    .addColumn('components', 'text', (c) => c.notNull().defaultTo('[]'))
    // Identifies incidents that come from a source outside the API (demo cycle, ingestion), so re-running is idempotent.
    .addColumn('external_key', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('resolved_at', 'bigint')
    .execute();
  // Partial: incidents created through the API carry no key and cost no index entry.
  await db.schema
    .createIndex('incidents_external_key')
    .on('incidents')
    .column('external_key')
    .unique()
    .where(sql.ref('external_key'), 'is not', null)
    .execute();
  await db.schema.createIndex('incidents_service_created').on('incidents').columns(['service_id', 'created_at']).execute();
  // Covers the status of a service: its open incidents by severity.
  await db.schema.createIndex('incidents_service_open').on('incidents').columns(['service_id', 'resolved', 'status']).execute();

  await withId(db, db.schema.createTable('incident_updates'))
    .addColumn('incident_id', 'bigint', (c) => c.notNull().references('incidents.id').onDelete('cascade'))
    .addColumn('stage', 'text', (c) => c.notNull().check(sql`stage in ('investigating', 'identified', 'monitoring', 'resolved')`))
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('incident_updates_incident').on('incident_updates').columns(['incident_id', 'id']).execute();

  await withId(db, db.schema.createTable('custom_monitors'))
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('probe_type', 'text', (c) => c.notNull().check(sql`probe_type in ('ping', 'keyword')`))
    .addColumn('keyword', 'text')
    .addColumn('interval_seconds', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('ok', 'down')`))
    .addColumn('consecutive_failures', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('custom_monitors_company').on('custom_monitors').column('company_id').execute();

  await withId(db, db.schema.createTable('monitor_incidents'))
    .addColumn('monitor_id', 'bigint', (c) => c.notNull().references('custom_monitors.id').onDelete('cascade'))
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('resolved', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('resolved_at', 'bigint')
    .execute();
  await db.schema.createIndex('monitor_incidents_monitor_created').on('monitor_incidents').columns(['monitor_id', 'created_at']).execute();

  await db.schema
    .createTable('boards')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('urlname', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('boards_company_urlname', ['company_id', 'urlname'])
    .execute();

  await db.schema
    .createTable('board_services')
    .addColumn('board_id', 'text', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('service_id', 'bigint', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('position', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('board_services_pk', ['board_id', 'service_id'])
    .execute();
  await db.schema.createIndex('board_services_service').on('board_services').column('service_id').execute();

  await withId(db, db.schema.createTable('status_pages'))
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // One row per custom service shown on a page, carrying the status the page displays.
  await db.schema
    .createTable('status_page_services')
    .addColumn('status_page_id', 'bigint', (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('service_id', 'bigint', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('status_page_services_pk', ['status_page_id', 'service_id'])
    .execute();
  await db.schema.createIndex('status_page_services_service').on('status_page_services').column('service_id').execute();

  await withId(db, db.schema.createTable('subscribers'))
    .addColumn('status_page_id', 'bigint', (c) => c.notNull().references('status_pages.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('webhook')`))
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('secret', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('subscribers_page_target', ['status_page_id', 'kind', 'target'])
    .execute();

  // Durable notifications: written in the transaction that causes them, delivered after commit.
  await withId(db, db.schema.createTable('outbox'))
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('subscriber_id', 'bigint', (c) => c.references('subscribers.id').onDelete('set null'))
    // Rows of one stream (one destination) are delivered in id order.
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'sent', 'dead')`))
    .addColumn('attempts', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .execute();
  // Only rows still to deliver are indexed, by stream in order; delivered rows leave the index.
  await db.schema.createIndex('outbox_pending').on('outbox').columns(['stream', 'id']).where(sql.ref('state'), '=', 'pending').execute();

  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
