import { SqliteAdapter } from 'kysely';
import type { Engine } from '../../engine.js';
import { openSqlite } from './connection.js';
import { sqliteLocks } from './locks.js';
import { sqliteQueries } from './queries.js';
import { labelOf } from './storage.js';
import { sqliteWriter } from './transactions.js';
import { noteChanges } from './triggers.js';

/** SQLite (better-sqlite3): a file, written by one process at a time. */
export const sqliteEngine: Engine = {
  // Any `--db` value no other engine names is a file (see database-url.ts for the forms refused before).
  names: () => true,
  label: labelOf,
  open: openSqlite,
  runs: (db) => db.getExecutor().adapter instanceof SqliteAdapter,
  queries: sqliteQueries,
  locks: sqliteLocks,
  writer: (db) => sqliteWriter(db),
  noteChanges,
};
