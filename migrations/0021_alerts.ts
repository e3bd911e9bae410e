import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Which label of an alert names the custom service it is about, and the service of alerts that name none
  // (no foreign key: companies are copied before services; the alert intake checks it is the company's).
  await db.schema
    .alterTable('companies')
    .addColumn('alert_service_label', 'text', (c) => c.notNull().defaultTo('service'))
    .execute();
  await db.schema.alterTable('companies').addColumn('alert_default_service_id', 'bigint').execute();

  // An alert group (Alertmanager's groupKey, the generic endpoint's dedup_key) and the incident it maps to,
  // with what fired last: a repeated notification of the same alerts changes nothing.
  await db.schema
    .createTable('alert_groups')
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('dedup_key', 'text', (c) => c.notNull())
    .addColumn('incident_id', 'bigint', (c) => c.notNull().references('incidents.id').onDelete('cascade'))
    .addColumn('firing', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('alert_groups_pk', ['company_id', 'source', 'dedup_key'])
    .execute();
  // A deleted incident takes its group along.
  await db.schema.createIndex('alert_groups_incident').on('alert_groups').column('incident_id').execute();

  // An incident's postmortem reads the audit rows of that incident.
  await db.schema.createIndex('audit_events_target').on('audit_events').columns(['target_type', 'target_id']).execute();
}
