import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, Driver, SqliteDatabase, SqliteStatement } from 'kysely';
import type { OpenDatabaseOptions, OpenedDatabase } from '../../engine.js';
import type { Database } from '../../schema.js';
import { movesCachedReads } from '../../write-effects.js';
import { changeMarker } from './change-feed.js';
import { makeFolders } from './storage.js';

/*
 * SQLite: one connection to the file, in this process, with its statements
 * prepared once, and write transactions that take the write lock at `begin`.
 */

/**
 * Statements are prepared once per SQL text: kysely prepares on every query, and
 * preparing costs more than running the small statements the API issues.
 */
function cachingDatabase(sqlite: BetterSqlite3.Database, written: () => void, capacity = 500): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string): SqliteStatement {
      let stmt = statements.get(sql);
      if (!stmt) {
        if (statements.size >= capacity) statements.clear();
        const prepared = sqlite.prepare(sql);
        stmt =
          prepared.readonly || !movesCachedReads(sql) ? (prepared as unknown as SqliteStatement) : telling(prepared as unknown as SqliteStatement, written);
        statements.set(sql, stmt);
      }
      return stmt;
    },
  };
}

/** A statement that may write, which says so each time it has run (or failed: what it did is not known then). */
function telling(stmt: SqliteStatement, written: () => void): SqliteStatement {
  return {
    reader: stmt.reader,
    all(parameters) {
      try {
        return stmt.all(parameters);
      } finally {
        written();
      }
    },
    run(parameters) {
      try {
        return stmt.run(parameters);
      } finally {
        written();
      }
    },
    iterate(parameters) {
      written();
      return stmt.iterate(parameters);
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

const WAL_CHECKPOINT_PAGES = 100;

export function openSqlite(options: OpenDatabaseOptions): OpenedDatabase {
  if (options.path !== ':memory:') makeFolders(dirname(resolve(options.path)));
  const sqlite = new BetterSqlite3(options.path);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a commit is on disk before the API answers 2xx, also across a power cut.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // The commit that takes the WAL past this many pages copies them into the database and syncs it, on the event
  // loop: 100 pages (SQLite's default is 1,000) keeps each such pause short, which is what a request waiting behind
  // it sees, for more and smaller syncs (see docs/performance.md, Outbox soak).
  sqlite.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  // Every statement of this process that may write runs through the dialect's prepared statements: counted in
  // JavaScript, a cached read need not ask SQLite for total_changes(), a call into it per request.
  let ownWrites = 0;
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect(cachingDatabase(sqlite, () => void ownWrites++)) });
  const marker = changeMarker(sqlite, () => ownWrites);
  return {
    db,
    marker,
    // A lookup costs little here, and a commit of another process (`statusbot key revoke`) says nothing of what it changed.
    keysMarker: marker,
    feed: null,
    poolSize: 1,
    // The file is always there to answer.
    answers: async () => true,
    unusable: async () => null,
  };
}
