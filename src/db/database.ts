import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresAdapter, PostgresDialect, SqliteDialect, SqliteDriver, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConnection, Driver, SqliteDatabase, SqliteStatement } from 'kysely';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export interface OpenDatabaseOptions {
  /**
   * A `postgres://` (or `postgresql://`) URL selects PostgreSQL; anything else
   * is a SQLite file, created with its folder when missing (':memory:' for throwaway use).
   */
  path: string;
  /** PostgreSQL: connections in the pool (default 10). */
  poolSize?: number;
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

const markers = new WeakMap<Db, () => string | Promise<string>>();

/** How long a commit by another process may stay unseen by `changeMarker` (SQLite; PostgreSQL reads it each time). */
export const FOREIGN_CHANGE_DELAY_MS = 1;

/**
 * A value that changes whenever the database changes; caches of query results
 * compare it. SQLite: at once for commits of this connection (total_changes, a
 * counter in memory), and within FOREIGN_CHANGE_DELAY_MS for commits of other
 * processes (data_version, which takes a file lock, so under load it is read
 * once per interval, not per call). PostgreSQL: the change counter that every
 * write transaction moves (see the writer), read with one small query, so a
 * write on any replica is seen by the very next read on every other.
 */
export function changeMarker(db: Db): string | Promise<string> {
  const marker = markers.get(db);
  if (!marker) throw new Error('changeMarker needs a database opened by openDatabase');
  return marker();
}

/**
 * After rows were written with ids the config gives: the next generated id
 * comes after them. SQLite's autoincrement sees given ids by itself;
 * PostgreSQL's identity sequence does not, and is moved on here.
 */
export async function afterGivenIds(trx: Kysely<Database>, table: 'services' | 'custom_monitors'): Promise<void> {
  if (engineOf(trx) !== 'postgres') return;
  await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false) from ${sql.table(table)}`.execute(trx);
}

export const isPostgresUrl = (path: string): boolean => /^postgres(ql)?:\/\//i.test(path);

/** Which engine a database runs on. */
export const engineOf = (db: Kysely<unknown> | Db): 'postgres' | 'sqlite' => (db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite');

// PostgreSQL's bigint (times in milliseconds, ids, counts) comes back as a JavaScript number, as from SQLite.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** The name of the row in `meta` that counts changes, for changeMarker on PostgreSQL. */
export const CHANGE_COUNTER = 'changes';

/**
 * PostgreSQL's counterpart of SQLite's total_changes and data_version: every
 * statement that writes a table (but `meta` itself) moves the change counter,
 * in its transaction, so a reader sees the new count exactly when it sees the
 * change. Applied after the migrations, for every table they created.
 */
export async function countChangesOnPostgres(db: Db): Promise<void> {
  await sql`
    create or replace function statusbot_count_change() returns trigger language plpgsql as $$
    begin
      update meta set value = (value::bigint + 1)::text where key = ${sql.lit(CHANGE_COUNTER)};
      return null;
    end $$`.execute(db);
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'
      and table_name not in ('meta', 'kysely_migration', 'kysely_migration_lock')`.execute(db);
  for (const { table_name: table } of rows) {
    await sql`drop trigger if exists statusbot_count_change on ${sql.table(table)}`.execute(db);
    await sql`create trigger statusbot_count_change after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function statusbot_count_change()`.execute(db);
  }
}

/** A database that cannot be used: it says where and why in one line (never a password). */
export class DatabaseUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

const targets = new WeakMap<Db, string>();

/** `host:port/database` of a PostgreSQL URL, without its credentials. */
function targetOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return 'an address that is not a valid postgres:// URL';
  }
}

/** How logs name a database: the file, or `PostgreSQL at host:port/database` (never the URL's credentials). */
export const databaseLabel = (path: string): string => (isPostgresUrl(path) ? `PostgreSQL at ${targetOf(path)}` : path);

/** Why PostgreSQL could not be used, in words. */
function reasonOf(error: unknown): string {
  const e = error as { code?: string; message?: string };
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the server running, on this port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
      return 'no answer (timeout)';
    case '28000':
    case '28P01':
      return `authentication failed: ${e.message ?? ''}`;
    case '3D000':
      return `${e.message ?? 'the database does not exist'}`;
    case 'ERR_INVALID_URL':
      return 'not a valid postgres:// URL';
    default:
      return e.message ?? String(error);
  }
}

/** Errors that say the database cannot be reached now (a PostgreSQL server down or restarting), not that a query is wrong. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03'].includes(code) ||
    code.startsWith('08') ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(message)
  );
}

/** Whether the database answers now: always for SQLite's file, a quick query for PostgreSQL (for /healthz). */
export async function databaseAnswers(db: Db): Promise<boolean> {
  if (!targets.has(db)) return true;
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/** Checks that the database answers; a PostgreSQL server that does not stops the start with one clear line. */
export async function assertDatabaseAnswers(db: Db): Promise<void> {
  const target = targets.get(db);
  if (target === undefined) return;
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    throw new DatabaseUnavailableError(`cannot use the PostgreSQL database at ${target}: ${reasonOf(error)}`);
  }
}

function openPostgres(url: string, poolSize: number): Db {
  // A request waits at most 5 s for a connection: while the server is down, requests fail fast with 503.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle connection that breaks (a restart of the server) is replaced by the pool; it must not end the process.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  targets.set(db, targetOf(url));
  markers.set(db, async () => {
    const { rows } = await sql<{ value: string }>`select value from meta where key = ${CHANGE_COUNTER}`.execute(db);
    return rows[0]?.value ?? '0';
  });
  return db;
}

export function openDatabase(options: OpenDatabaseOptions): Db {
  if (isPostgresUrl(options.path)) return openPostgres(options.path, options.poolSize ?? 10);
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
