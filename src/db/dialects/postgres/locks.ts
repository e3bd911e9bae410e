import type { SelectQueryBuilder } from 'kysely';
import type { EngineLocks, ServiceLockingRead, ServiceRows } from '../../engine.js';
import { prepared } from '../../prepared.js';
import type { PreparedQuery } from '../../prepared.js';
import type { Database } from '../../schema.js';
import { changeNoteColumns, LockBusy, lockTurn, noteChange } from './transactions.js';
import type { ChangeNote } from './transactions.js';

/*
 * PostgreSQL runs write transactions side by side: a row lock on a service
 * queues those that change it.
 */

/**
 * The read prepared in the four ways a writer's transaction may ask for it
 * (see lockTurn): with or without the change note, waiting for the row or
 * skipping it (then LockBusy is thrown). `for no key update`: it queues the
 * changes of one service, not the writes that merely refer to it. What the
 * row's own statement reads of other rows may predate the lock, if it had to wait.
 */
function serviceLockingRead<P extends string, R extends object>(rows: ServiceRows<P, R>): ServiceLockingRead<P, R> {
  type Row = R & Partial<ChangeNote>;
  const lock = (note: boolean, skip: boolean): PreparedQuery<P, Row> =>
    prepared((db, p) => {
      let query = rows(db, p) as SelectQueryBuilder<Database, 'services', Row>;
      if (note) query = query.select(changeNoteColumns) as typeof query;
      query = query.forNoKeyUpdate('services');
      return skip ? query.skipLocked() : query;
    });
  const locks = { wait: lock(false, false), noteWait: lock(true, false), skip: lock(false, true), noteSkip: lock(true, true) };
  return async (trx, args) => {
    const turn = lockTurn(trx);
    const query = turn.note ? (turn.skip ? locks.noteSkip : locks.noteWait) : turn.skip ? locks.skip : locks.wait;
    const [row] = await query(trx, args);
    if (row?.xid !== undefined && row.listeners !== undefined) noteChange(trx, { xid: row.xid, listeners: row.listeners });
    // Skipped, or not there: a later transaction, where the lock may be waited for, tells which.
    if (!row && turn.skip) throw new LockBusy();
    return row;
  };
}

export const postgresLocks: EngineLocks = { serviceLockingRead, needed: true };
