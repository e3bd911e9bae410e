import type { Kysely } from 'kysely';
import type { ChangeFeedView, OpenDatabaseOptions, OpenedDatabase } from './engine.js';
import { engineFor } from './engines.js';
import type { Database } from './schema.js';
import { DatabaseUnavailableError } from '../infrastructure/database-unavailable.js';

export type Db = Kysely<Database>;
export type { OpenDatabaseOptions };

/*
 * Opening a database, and what the rest of statusbot asks of an open one:
 * whether it changed, whether it answers. Each engine opens its own way
 * (connection.ts of its folder in dialects/).
 */

const opened = new WeakMap<Db, OpenedDatabase>();

/** What the engine said of `db` when it opened it (undefined for a database not opened by openDatabase). */
export const openedOf = (db: Db): OpenedDatabase | undefined => opened.get(db);

export function openDatabase(options: OpenDatabaseOptions): Db {
  const database = engineFor(options.path).open(options);
  opened.set(database.db, database);
  return database.db;
}

/** How logs name a database: the file, or `PostgreSQL at host:port/database` (never the URL's credentials). */
export const databaseLabel = (path: string): string => engineFor(path).label(path);

/**
 * A value that changes whenever the database changes; caches of query results
 * compare it. SQLite: at once for writes of this connection, and within a
 * millisecond for commits of other processes. PostgreSQL: the generation of
 * the process's ChangeFeed, moved by every commit of any replica, which the
 * writer waits to be heard everywhere before it answers; so a write on any
 * replica is seen by the very next read on every other, without a round trip
 * per read. See change-feed.ts of each engine.
 */
export function changeMarker(db: Db): string {
  const database = opened.get(db);
  if (!database) throw new Error('changeMarker needs a database opened by openDatabase');
  return database.marker();
}

/**
 * A value that changes whenever API keys or companies may have changed: what
 * authenticated keys are remembered under. PostgreSQL: moved only by such
 * commits, of any replica (see ChangeFeed.keysMarker), so that writes under
 * load do not make every request look its key up again. SQLite: as
 * `changeMarker` (a lookup there costs little, and a commit of another
 * process, `statusbot key revoke`, says nothing of what it changed).
 */
export function keysMarker(db: Db): string {
  const database = opened.get(db);
  if (!database) throw new Error('keysMarker needs a database opened by openDatabase');
  return database.keysMarker();
}

/** The connections to the database (1 for SQLite's one connection). */
export const poolSizeOf = (db: Db): number => opened.get(db)?.poolSize ?? 1;

/** The change feed of a database shared by replicas (null where commits are seen through the file). */
export const changeFeedOf = (db: Db): ChangeFeedView | null => opened.get(db)?.feed ?? null;

export { DatabaseUnavailableError, isDatabaseUnavailable } from '../infrastructure/database-unavailable.js';

/** Whether the database answers now: always for SQLite's file, a quick query for PostgreSQL (for /healthz). */
export async function databaseAnswers(db: Db): Promise<boolean> {
  return (await opened.get(db)?.answers()) ?? true;
}

/** Checks that the database answers; a server that does not stops the start with one clear line. */
export async function assertDatabaseAnswers(db: Db): Promise<void> {
  const reason = await opened.get(db)?.unusable();
  if (reason) throw new DatabaseUnavailableError(reason);
}
