import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Database, IncidentUpdatesTable, IncidentsTable } from '../../db/schema.js';
import { OUTAGE_OVER } from './demo-cycle.js';

/*
 * Reads never write, yet must show the demo cycle as the clock has it. So the
 * demo job writes `demo-service`'s outages ahead, each open incident carrying
 * in `resolved_at` the end of its period, and reads of incidents and statuses
 * see the rows through this view at the clock's `now`: an outage whose period
 * has not begun is not there yet, and one whose period is over reads as
 * resolved at that end, with its closing update, as the job will then write
 * it. Any other incident is never open with a `resolved_at`, and reads as stored.
 */

type Incidents = ExpressionBuilder<Database, 'incidents'>;
type Row = Pick<Selectable<IncidentsTable>, 'resolved' | 'resolved_at' | 'updated_at' | 'description'>;
type Update = Pick<Selectable<IncidentUpdatesTable>, 'stage' | 'description' | 'created_at'>;

/** The incidents there are at `now`: all but outages written ahead whose period has not begun. */
export const begunBy = (now: number) => (eb: Incidents) =>
  eb.or([eb('incidents.resolved', '=', 1), eb('incidents.resolved_at', 'is', null), eb('incidents.created_at', '<=', now)]);

/** The incidents open at `now`. */
export const openAt = (now: number) => (eb: Incidents) =>
  eb.and([
    eb('incidents.resolved', '=', 0),
    eb.or([eb('incidents.resolved_at', 'is', null), eb.and([eb('incidents.created_at', '<=', now), eb('incidents.resolved_at', '>', now)])]),
  ]);

/** An incident row (of those `begunBy(now)`) as it reads at `now`. */
export function incidentAt<R extends Row>(row: R, now: number): R {
  if (row.resolved === 1 || row.resolved_at === null) return row;
  if (row.resolved_at > now) return { ...row, resolved_at: null };
  return { ...row, resolved: 1, updated_at: row.resolved_at, description: OUTAGE_OVER };
}

/** An incident's updates as they read at `now`, given its stored row: with the closing update of an outage that is over. */
export function updatesAt(row: Row, updates: readonly Update[], now: number): Update[] {
  const read = incidentAt(row, now);
  if (read.resolved === row.resolved) return [...updates];
  return [...updates, { stage: 'resolved', description: read.description, created_at: read.updated_at }];
}
