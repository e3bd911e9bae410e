import type { CompiledQuery, Kysely } from 'kysely';
import { prepared } from '../../../db/prepared.js';
import type { Database } from '../../../db/schema.js';
import type { ServiceStatus } from '../../model/service.js';
import type { StoredUpdate } from '../incident-repository.js';

/** The service's status just before a change and just after it, as the change made them. */
export interface StatusMove {
  before: ServiceStatus;
  after: ServiceStatus;
}

type UpdateParams = 'incident' | 'stage' | 'description' | 'at' | 'before' | 'after';
const insertUpdate = prepared<UpdateParams, never>((db, p) =>
  db.insertInto('incident_updates').values({
    incident_id: p.incident,
    stage: p.stage,
    description: p.description,
    created_at: p.at,
    service_status_before: p.before,
    service_status_after: p.after,
  }),
);

/**
 * The writes of the updates one change posts, oldest first. The last carries
 * the service's move; those before it (a feed catching up on a vendor's
 * history) were posted at once with it, when the service's status at their
 * time was not read: they carry none.
 */
export function updateWrites(db: Kysely<Database>, incidentId: number, updates: readonly StoredUpdate[], move: StatusMove): CompiledQuery[] {
  if (updates.length === 0) return [];
  const rows = updates.map((u, i) => {
    const last = i === updates.length - 1;
    return {
      incident_id: incidentId,
      stage: u.stage,
      description: u.description,
      created_at: u.created_at,
      service_status_before: last ? move.before : null,
      service_status_after: last ? move.after : null,
    };
  });
  if (rows.length === 1) {
    const [u] = rows;
    return [
      insertUpdate.bind(db, {
        incident: incidentId,
        stage: u!.stage,
        description: u!.description,
        at: u!.created_at,
        before: u!.service_status_before,
        after: u!.service_status_after,
      }),
    ];
  }
  return [db.insertInto('incident_updates').values(rows).compile()];
}

/** The move a change's last update carries, said again: its write held to facts that had moved before the lock was taken. */
export const restatedMove = (db: Kysely<Database>, incidentId: number, move: StatusMove): CompiledQuery =>
  db
    .updateTable('incident_updates')
    .set({ service_status_before: move.before, service_status_after: move.after })
    .where('id', '=', (eb) =>
      eb
        .selectFrom('incident_updates')
        .select((se) => se.fn.max('id').as('id'))
        .where('incident_id', '=', incidentId),
    )
    .compile();
