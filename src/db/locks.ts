import type { Kysely, SelectQueryBuilder } from 'kysely';
import { engineOf } from './database.js';
import { prepared } from './prepared.js';
import type { PreparedQuery } from './prepared.js';
import type { Database } from './schema.js';
import { changeNoteColumns, LockBusy, lockTurn, noteChange } from './writer.js';
import type { ChangeNote } from './writer.js';

/** A read that takes a service's lock for a change: its row, or undefined when there is none to lock. */
export type ServiceLockingRead<P extends string, R> = (trx: Kysely<Database>, args: Record<P, unknown>) => Promise<R | undefined>;

/**
 * A read of (at most) one row of `services`, with what it selects along, that
 * makes the transaction the only one changing this service until it ends (see
 * lockService). On PostgreSQL it is prepared in the four ways a
 * writer's transaction may ask for it (see lockTurn): with or without the
 * change note, waiting for the row or skipping it (then LockBusy is thrown).
 * `for no key update`: it queues the changes of one service, not the writes
 * that merely refer to it. What the row's own statement reads of other rows
 * may predate the lock, if it had to wait.
 */
export function serviceLockingRead<P extends string, R extends object>(
  rows: (db: Kysely<Database>, p: Record<P, never>) => SelectQueryBuilder<Database, 'services', R> | SelectQueryBuilder<Database, 'services' | 'incidents', R>,
): ServiceLockingRead<P, R> {
  type Row = R & Partial<ChangeNote>;
  const lock = (note: boolean, skip: boolean): PreparedQuery<P, Row> =>
    prepared((db, p) => {
      let query = rows(db, p) as SelectQueryBuilder<Database, 'services', Row>;
      if (note) query = query.select(changeNoteColumns) as typeof query;
      query = query.forNoKeyUpdate('services');
      return skip ? query.skipLocked() : query;
    });
  const plain = prepared<P, Row>((db, p) => rows(db, p) as SelectQueryBuilder<Database, 'services', Row>);
  const locks = { wait: lock(false, false), noteWait: lock(true, false), skip: lock(false, true), noteSkip: lock(true, true) };
  return async (trx, args) => {
    if (engineOf(trx) !== 'postgres') return (await plain(trx, args))[0];
    const turn = lockTurn(trx);
    const query = turn.note ? (turn.skip ? locks.noteSkip : locks.noteWait) : turn.skip ? locks.skip : locks.wait;
    const [row] = await query(trx, args);
    if (row?.xid !== undefined && row.listeners !== undefined) noteChange(trx, { xid: row.xid, listeners: row.listeners });
    // Skipped, or not there: a later transaction, where the lock may be waited for, tells which.
    if (!row && turn.skip) throw new LockBusy();
    return row;
  };
}

const serviceById = serviceLockingRead<'id', { id: number }>((db, p) => db.selectFrom('services').select('services.id').where('services.id', '=', p.id));

/**
 * Makes the transaction the only one changing this service until it ends, so
 * that what it reads of the service (its status before the change) still holds
 * when it commits. PostgreSQL runs write transactions side by side: a row lock
 * queues those on the same service. SQLite runs one write transaction at a
 * time, which already gives the same. Read what depends on the lock in later
 * statements: a statement that waited for it sees the database as it was
 * before it waited. In a transaction of the writer, take it first (see lockTurn).
 */
export async function lockService(trx: Kysely<Database>, serviceId: number): Promise<void> {
  if (engineOf(trx) === 'postgres') await serviceById(trx, { id: serviceId });
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
  if (engineOf(trx) === 'postgres') await serviceOfIncident(trx, { incident: incidentId });
}
