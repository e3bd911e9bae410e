import type { Kysely } from 'kysely';
import type { EngineLocks, ServiceLockingRead, ServiceRows } from './engine.js';
import { engineOf } from './engines.js';
import type { Database } from './schema.js';

export type { ServiceLockingRead };

/**
 * A read of (at most) one row of `services`, with what it selects along, that
 * makes the transaction the only one changing this service until it ends (see
 * lockService), each engine its way (locks.ts of its folder in dialects/).
 */
export function serviceLockingRead<P extends string, R extends object>(rows: ServiceRows<P, R>): ServiceLockingRead<P, R> {
  const byEngine = new Map<EngineLocks, ServiceLockingRead<P, R>>();
  return (trx, args) => {
    const locks = engineOf(trx).locks;
    let read = byEngine.get(locks);
    if (!read) {
      read = locks.serviceLockingRead(rows);
      byEngine.set(locks, read);
    }
    return read(trx, args);
  };
}

const serviceById = serviceLockingRead<'id', { id: number }>((db, p) => db.selectFrom('services').select('services.id').where('services.id', '=', p.id));

/**
 * Makes the transaction the only one changing this service until it ends, so
 * that what it reads of the service (its status before the change) still holds
 * when it commits. Where write transactions run side by side, a row lock
 * queues those on the same service; where they run one at a time, that
 * already gives the same. Read what depends on the lock in later
 * statements: a statement that waited for it sees the database as it was
 * before it waited. In a transaction of the writer, take it first (see
 * lockTurn in the transactions.ts of engines that lock).
 */
export async function lockService(trx: Kysely<Database>, serviceId: number): Promise<void> {
  if (engineOf(trx).locks.needed) await serviceById(trx, { id: serviceId });
}

const serviceOfIncident = serviceLockingRead<'incident', { id: number }>(
  (db, p) =>
    db
      .selectFrom('incidents')
      .innerJoin('services', 'services.id', 'incidents.service_id')
      .select('services.id')
      .where('incidents.id', '=', p.incident) as never,
);

/**
 * lockService for the service of an incident: what changes an incident's
 * chat roles (its lead, its room) and reads the other's takes it first, so
 * that of two such changes at once the later sees what the earlier
 * committed. Two transactions that each wrote one and read the other before
 * either committed would both miss the other's change (a lead named while
 * the room opens would never be invited).
 */
export async function lockIncident(trx: Kysely<Database>, incidentId: number): Promise<void> {
  if (engineOf(trx).locks.needed) await serviceOfIncident(trx, { incident: incidentId });
}
