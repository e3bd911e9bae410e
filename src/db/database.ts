import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, Driver, SqliteDatabase, SqliteStatement } from 'kysely';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export interface OpenDatabaseOptions {
  /** A file path; created with its folder when missing. ':memory:' for throwaway use. */
  path: string;
  /** Milliseconds a statement waits on another process's lock before failing. */
  busyTimeoutMs?: number;
}

/**
 * Statements are prepared once per SQL text: kysely prepares on every query, and
 * preparing costs more than running the small statements the API issues.
 */
function cachingDatabase(sqlite: BetterSqlite3.Database, capacity = 500): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SqliteStatement {
      let stmt = statements.get(sql);
      if (!stmt) {
        if (statements.size >= capacity) statements.clear();
        stmt = sqlite.prepare(sql) as unknown as SqliteStatement;
        statements.set(sql, stmt);
      }
      return stmt;
    },
  };
}

/**
 * Write transactions take the write lock at `begin`: a deferred transaction that
 * upgrades from read to write fails at once (SQLITE_BUSY) when another process
 * wrote meanwhile, while `begin immediate` waits out the busy timeout.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #database: SqliteDatabase;
  constructor(database: SqliteDatabase) {
    super({ database });
    this.#database = database;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.#database });
  }
}

const markers = new WeakMap<Db, () => string>();

/** How long a commit by another process may stay unseen by `changeMarker`. */
export const FOREIGN_CHANGE_DELAY_MS = 1;

/**
 * A value that changes whenever the database changes: at once for commits of
 * this connection (total_changes, a counter in memory), and within
 * FOREIGN_CHANGE_DELAY_MS for commits of other processes (data_version, which
 * takes a file lock, so under load it is read once per interval, not per call).
 * Caches of query results compare it.
 */
export function changeMarker(db: Db): string {
  const marker = markers.get(db);
  if (!marker) throw new Error('changeMarker needs a database opened by openDatabase');
  return marker();
}

export function openDatabase(options: OpenDatabaseOptions): Db {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const sqlite = new BetterSqlite3(options.path);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a commit is on disk before the API answers 2xx, also across a power cut.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(cachingDatabase(sqlite)) });
  const totalChanges = sqlite.prepare('select total_changes()').pluck();
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let foreign = String(dataVersion.get());
  let checkedAt = performance.now();
  markers.set(db, () => {
    const now = performance.now();
    if (now - checkedAt >= FOREIGN_CHANGE_DELAY_MS) {
      foreign = String(dataVersion.get());
      checkedAt = now;
    }
    return `${String(totalChanges.get())}.${foreign}`;
  });
  return db;
}
