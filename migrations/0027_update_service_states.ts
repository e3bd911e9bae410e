import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The status of the incident's service just before an update was posted and just after it, as the change that
  // posted it made them (ok, minor, major, maintenance): what a status page says each update did to the service.
  // Null on the updates written before: what their service's status was then was never recorded.
  await db.schema.alterTable('incident_updates').addColumn('service_status_before', 'text').execute();
  await db.schema.alterTable('incident_updates').addColumn('service_status_after', 'text').execute();
}
