import type { SelectQueryBuilder } from 'kysely';
import type { EngineLocks, ServiceLockingRead, ServiceRows } from '../../engine.js';
import { prepared } from '../../prepared.js';
import type { Database } from '../../schema.js';

/*
 * SQLite runs one write transaction at a time, which already makes it the
 * only one changing a service: the locking read is a plain read.
 */

function serviceLockingRead<P extends string, R extends object>(rows: ServiceRows<P, R>): ServiceLockingRead<P, R> {
  const plain = prepared<P, R>((db, p) => rows(db, p) as SelectQueryBuilder<Database, 'services', R>);
  return async (trx, args) => (await plain(trx, args))[0];
}

export const sqliteLocks: EngineLocks = { serviceLockingRead, needed: false };
