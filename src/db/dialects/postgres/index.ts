import { PostgresAdapter } from 'kysely';
import { isPostgresUrl } from '../../database-url.js';
import type { Engine } from '../../engine.js';
import { openPostgres } from './connection.js';
import { postgresLocks } from './locks.js';
import { postgresQueries } from './queries.js';
import { labelOf } from './storage.js';
import { postgresWriter } from './transactions.js';
import { noteChanges } from './triggers.js';

/** PostgreSQL (node-postgres): a server, shared by several processes (replicas) and transactions at once. */
export const postgresEngine: Engine = {
  names: isPostgresUrl,
  label: labelOf,
  open: openPostgres,
  runs: (db) => db.getExecutor().adapter instanceof PostgresAdapter,
  queries: postgresQueries,
  locks: postgresLocks,
  writer: postgresWriter,
  noteChanges,
};
