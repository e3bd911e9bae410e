import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { Database, IncidentsTable } from '../../db/schema.js';
import { openAt } from '../model/demo-view.js';
import { maintenanceUnderWay, servicesUnderMaintenance } from './maintenance-windows.js';
import type { ServiceStatus } from '../model/service.js';

/**
 * Current status of each service: `maintenance` while a maintenance is under
 * way (a company's, or a window of the config; see maintenance-windows.ts);
 * else, for a vendor whose feed states a status, that status as last read;
 * else the worst open incident (`major` > `minor`), else `ok`. Incidents
 * opened from user reports never change a status.
 */
export async function statusesOf(db: Kysely<Database>, serviceIds: readonly number[], now: number): Promise<Map<number, ServiceStatus>> {
  const statuses = new Map<number, ServiceStatus>();
  if (serviceIds.length === 0) return statuses;
  for (const id of serviceIds) statuses.set(id, 'ok');

  const open = await db
    .selectFrom('incidents')
    .select(['service_id', 'status'])
    .distinct()
    .where('service_id', 'in', serviceIds)
    .where('user_generated', '=', 0)
    .where(openAt(now))
    .execute();
  for (const row of open) {
    if (row.status === 'major' || statuses.get(row.service_id) === 'ok') statuses.set(row.service_id, row.status);
  }

  const stated = await db
    .selectFrom('vendor_feeds')
    .select(['service_id', 'indicator'])
    .where('service_id', 'in', serviceIds)
    .where('indicator', 'is not', null)
    .execute();
  for (const row of stated) statuses.set(row.service_id, row.indicator!);

  for (const id of await servicesUnderMaintenance(db, serviceIds, now)) statuses.set(id, 'maintenance');
  return statuses;
}

/** What a service's status is made of; from PostgreSQL `exists` gives booleans, from SQLite 0 and 1. */
export interface StatusFacts {
  indicator: ServiceStatus | null;
  maintenance: number | boolean;
  major: number | boolean;
  minor: number | boolean;
}

/**
 * The facts of the service of the row in scope (`services.id`), as columns,
 * but for one incident (`exceptIncident`, null for none; see `statusWith`).
 * Each `exists` is one seek on the (service_id, resolved, status) index,
 * however many incidents are open.
 */
export function statusFactColumns(eb: ExpressionBuilder<Database, 'services'>, now: number, exceptIncident: number | null) {
  const openIncidents = (status: 'major' | 'minor') =>
    eb
      .selectFrom('incidents')
      .select('incidents.id')
      .whereRef('incidents.service_id', '=', 'services.id')
      .where('incidents.user_generated', '=', 0)
      .where(openAt(now))
      .where('incidents.status', '=', status)
      .where('incidents.id', 'is distinct from', exceptIncident);
  return [
    eb.selectFrom('vendor_feeds').select('vendor_feeds.indicator').whereRef('vendor_feeds.service_id', '=', 'services.id').as('indicator'),
    eb.parens(maintenanceUnderWay(eb, eb.ref('services.id'), now)).as('maintenance'),
    eb.exists(openIncidents('major')).as('major'),
    eb.exists(openIncidents('minor')).as('minor'),
  ] as const;
}

/**
 * Whether the service's facts are these (PostgreSQL: `exists` reads as a
 * boolean): a write made under this condition holds to what was read before
 * the service's lock was taken, or is not made (see incident-pipeline.ts). The
 * facts are read as columns, as by `statusFactColumns`, and compared outside
 * (`offset 0` keeps them there): each `exists` then stops at the first row.
 */
export function statusFactsAre(
  eb: ExpressionBuilder<Database, never>,
  service: number,
  now: number,
  exceptIncident: number | null,
  facts: Record<keyof StatusFacts, unknown>,
): Expression<SqlBool> {
  const read = eb
    .selectFrom('services')
    .select((se) => statusFactColumns(se, now, exceptIncident))
    .where('services.id', '=', service)
    .offset(0)
    .as('f');
  return eb.exists(
    eb
      .selectFrom(read)
      .select('f.maintenance')
      .where('f.indicator', 'is not distinct from', facts.indicator as ServiceStatus | null)
      .where('f.maintenance', '=', facts.maintenance as boolean)
      .where('f.major', '=', facts.major as boolean)
      .where('f.minor', '=', facts.minor as boolean),
  );
}

const statusFacts = prepared<'service' | 'now' | 'except', StatusFacts>((db, p) =>
  db
    .selectFrom('services')
    .select((eb) => statusFactColumns(eb, p.now, p.except))
    .where('services.id', '=', p.service),
);

/** The service's facts but for one incident (see `statusWith`). */
export async function statusFactsOf(db: Kysely<Database>, serviceId: number, now: number, exceptIncident: number | null): Promise<StatusFacts | undefined> {
  return (await statusFacts(db, { service: serviceId, now, except: exceptIncident }))[0];
}

/** An incident as the status of its service counts it. */
export type CountedIncident = Pick<Selectable<IncidentsTable>, 'status' | 'resolved' | 'resolved_at' | 'created_at' | 'user_generated'>;

/** Whether the incident makes its service's status at `now`: open (see openAt), and not opened from user reports. */
const counts = (incident: CountedIncident, now: number): boolean =>
  incident.user_generated === 0 && incident.resolved === 0 && (incident.resolved_at === null || (incident.created_at <= now && incident.resolved_at > now));

/**
 * The status the facts make, with one more incident as it stands (or none):
 * facts read without an incident and that incident before and after its
 * change give the status before and after, from one read.
 */
export function statusWith(facts: StatusFacts | undefined, incident: CountedIncident | null, now: number): ServiceStatus {
  if (facts?.maintenance) return 'maintenance';
  if (facts?.indicator) return facts.indicator;
  const also = incident && counts(incident, now) ? incident.status : null;
  if (facts?.major || also === 'major') return 'major';
  if (facts?.minor || also === 'minor') return 'minor';
  return 'ok';
}

export async function statusOf(db: Kysely<Database>, serviceId: number, now: number): Promise<ServiceStatus> {
  return statusWith(await statusFactsOf(db, serviceId, now, null), null, now);
}
