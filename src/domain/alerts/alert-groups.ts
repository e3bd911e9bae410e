import type { Kysely } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { AlertSource, Database } from '../../db/schema.js';

export type { AlertSource };

/** A group's incident and what fired last. */
export interface AlertGroup {
  incidentId: number;
  firing: string;
}

const groupByKey = prepared<'company' | 'source' | 'key', { incident_id: number; firing: string; resolved: number }>((db, p) =>
  db
    .selectFrom('alert_groups')
    .innerJoin('incidents', 'incidents.id', 'alert_groups.incident_id')
    .select(['alert_groups.incident_id', 'alert_groups.firing', 'incidents.resolved'])
    .where('alert_groups.company_id', '=', p.company)
    .where('alert_groups.source', '=', p.source)
    .where('alert_groups.dedup_key', '=', p.key),
);

/** The group's incident, what fired last, and whether the incident is resolved. */
export async function findAlertGroup(
  db: Kysely<Database>,
  companyId: number,
  source: AlertSource,
  key: string,
): Promise<(AlertGroup & { resolved: boolean }) | undefined> {
  const [row] = await groupByKey(db, { company: companyId, source, key });
  return row ? { incidentId: Number(row.incident_id), firing: row.firing, resolved: Number(row.resolved) === 1 } : undefined;
}

const upsertGroup = prepared<'company' | 'source' | 'key' | 'incident' | 'firing' | 'now', never>((db, p) =>
  db
    .insertInto('alert_groups')
    .values({ company_id: p.company, source: p.source, dedup_key: p.key, incident_id: p.incident, firing: p.firing, updated_at: p.now })
    .onConflict((oc) => oc.columns(['company_id', 'source', 'dedup_key']).doUpdateSet({ incident_id: p.incident, firing: p.firing, updated_at: p.now })),
);

/** Records the group's incident and what fired last, in the transaction of the change. */
export async function saveAlertGroup(
  trx: Kysely<Database>,
  companyId: number,
  source: AlertSource,
  key: string,
  group: AlertGroup,
  now: number,
): Promise<void> {
  await upsertGroup(trx, { company: companyId, source, key, incident: group.incidentId, firing: group.firing, now });
}
