import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { withId } from './engine.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A company's scheduled maintenance of some of its custom services; a job moves its status at its times.
  await withId(db, db.schema.createTable('maintenances'))
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('scheduled', 'in_progress', 'completed', 'cancelled')`))
    .addColumn('starts_at', 'bigint', (c) => c.notNull())
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('maintenances_company').on('maintenances').columns(['company_id', 'ends_at']).execute();
  // The job looks for what is due: scheduled ones by start, in-progress ones by end.
  await db.schema.createIndex('maintenances_due').on('maintenances').columns(['status', 'starts_at']).execute();

  await db.schema
    .createTable('maintenance_services')
    .addColumn('maintenance_id', 'bigint', (c) => c.notNull().references('maintenances.id').onDelete('cascade'))
    .addColumn('service_id', 'bigint', (c) => c.notNull().references('services.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('maintenance_services_pk', ['maintenance_id', 'service_id'])
    .execute();
  await db.schema.createIndex('maintenance_services_service').on('maintenance_services').columns(['service_id', 'maintenance_id']).execute();

  await withId(db, db.schema.createTable('maintenance_updates'))
    .addColumn('maintenance_id', 'bigint', (c) => c.notNull().references('maintenances.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('maintenance_updates_maintenance').on('maintenance_updates').columns(['maintenance_id', 'id']).execute();

  // A custom monitor may watch one of its company's custom services: a maintenance of that service pauses it.
  await db.schema
    .alterTable('custom_monitors')
    .addColumn('service_id', 'bigint', (c) => c.references('services.id').onDelete('set null'))
    .execute();
}
