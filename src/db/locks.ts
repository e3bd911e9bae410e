import type { Kysely } from 'kysely';
import { engineOf } from './database.js';
import { prepared } from './prepared.js';
import type { Database } from './schema.js';

/**
 * The query, locking the rows it reads until the transaction ends (PostgreSQL:
 * `for update`; SQLite's write transaction already holds the whole database).
 */
export const lockingRead = <Q extends { forUpdate(): Q }>(db: Kysely<Database>, query: Q): Q =>
  engineOf(db) === 'postgres' ? query.forUpdate() : query;

const lockService = prepared<'id', { id: number }>((db, p) =>
  lockingRead(db, db.selectFrom('services').select('id').where('id', '=', p.id)),
);

/**
 * Makes the transaction the only one changing this service until it ends, so
 * that what it reads of the service (its status before the change) still holds
 * when it commits. PostgreSQL runs write transactions side by side: a row lock
 * queues those on the same service. SQLite runs one write transaction at a
 * time, which already gives the same.
 */
export async function lockServiceForChange(trx: Kysely<Database>, serviceId: number): Promise<void> {
  if (engineOf(trx) === 'postgres') await lockService(trx, { id: serviceId });
}
