import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresAdapter, PostgresDialect, SqliteDialect, SqliteDriver, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConnection, Driver, SqliteDatabase, SqliteStatement } from 'kysely';
import { CHANGES_CHANNEL, ChangeFeed, KEYS_CHANGED_PREFIX, SERVER_KEEPALIVES, UNCACHED_CHANGE_PREFIX } from './change-feed.js';
import type { Database } from './schema.js';
import { isPostgresUrl } from './database-url.js';
import { refusesConnectionsNow } from './connection-refusal.js';

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

/**
 * SQLite: whether a statement that may write can change what a cached read
 * shows (see writeEffectOf). Transaction control and writes of UNCACHED_TABLES
 * and UNNOTED_TABLES alone cannot; a statement that names no table it writes
 * is taken to.
 */
function movesCachedReads(text: string): boolean {
  const effect = writeEffectOf(text);
  if (effect === 'writes' || effect === 'writesKeys') return true;
  if (effect !== 'none' || /^\s*(savepoint|release)\b/i.test(text)) return false;
  return text.match(WRITE) === null;
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

const markers = new WeakMap<Db, () => string>();

/** How long a commit by another process may stay unseen by `changeMarker` (SQLite; on PostgreSQL, see ChangeFeed). */
export const FOREIGN_CHANGE_DELAY_MS = 1;

/**
 * A value that changes whenever the database changes; caches of query results
 * compare it. SQLite: at once for writes of this connection (a count of the
 * statements that may write, kept as they run), and within FOREIGN_CHANGE_DELAY_MS for commits of other
 * processes (data_version, which takes a file lock, so under load it is read
 * once per interval, not per call). PostgreSQL: the generation of the process's ChangeFeed, moved by
 * every commit of any replica, which the writer waits to be heard everywhere
 * before it answers; so a write on any replica is seen by the very next read
 * on every other, without a round trip per read.
 */
export function changeMarker(db: Db): string {
  const marker = markers.get(db);
  if (!marker) throw new Error('changeMarker needs a database opened by openDatabase');
  return marker();
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
  const feed = feeds.get(db);
  return feed ? feed.keysMarker() : changeMarker(db);
}

/** Which engine a database runs on. */
export const engineOf = (db: Kysely<unknown> | Db): 'postgres' | 'sqlite' => (db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite');

// PostgreSQL's bigint (times in milliseconds, ids, counts) comes back as a JavaScript number, as from SQLite.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

const TRIGGER = 'statusbot_note_change';
/** Named to fire before TRIGGER (triggers on one event fire in the order of their names): its notification comes first. */
const KEYS_TRIGGER = 'statusbot_keys_change';
/** The tables whose rows an authenticated key is remembered with. */
const KEY_TABLES = ['api_keys', 'companies'];

/**
 * Tables no read shows (nothing a replica caches comes from them): writing
 * them moves no replica's caches. A unit that writes only these says so with
 * `changesNothingCached`, so that its writer does not wait for replicas that
 * will never hear of it.
 */
const UNNOTED_TABLES = ['meta', 'job_leases', 'seen_chat_requests', 'kysely_migration', 'kysely_migration_lock'];
/**
 * Tables of delivery's bookkeeping, which no cached read shows either, but
 * written all the time while notifications drain: their commits are told with
 * UNCACHED_CHANGE_PREFIX, so that replicas say they saw them (a writer that
 * waits is answered) and keep their caches. Were they told as other changes,
 * every claim and mark of a delivery would make every replica render its pages
 * and cached reads again, just when an incident brings readers.
 */
const UNCACHED_TABLES = ['outbox', 'notify_messages', 'chat_messages'];
const UNCACHED_TRIGGER = 'statusbot_note_uncached';

/**
 * PostgreSQL's counterpart of SQLite's total_changes and data_version: every
 * statement that writes a table (but those of UNNOTED_TABLES) notifies CHANGES_CHANNEL with its transaction's id, delivered to
 * every replica's ChangeFeed when the transaction commits (several
 * notifications of one transaction are delivered as one). Applied at every
 * start, after the migrations, for every table they created.
 */
export async function noteChangesOnPostgres(db: Db): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Replicas starting together take turns.
    await sql`select pg_advisory_xact_lock(hashtext(${TRIGGER}))`.execute(trx);
    // One function for both triggers: the keys trigger passes the prefix of its notification (see KEYS_CHANGED_PREFIX).
    await sql`
      create or replace function ${sql.raw(TRIGGER)}() returns trigger language plpgsql as $$
      begin
        perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, coalesce(TG_ARGV[0], '') || txid_current()::text);
        return null;
      end $$`.execute(trx);
    const exists = (trigger: string) => sql<boolean>`exists (select 1 from information_schema.triggers g
      where g.event_object_table = t.table_name and g.event_object_schema = t.table_schema and g.trigger_name = ${trigger})`;
    const { rows } = await sql<{ table_name: string; noted: boolean; keyed: boolean; counted: boolean; uncached: boolean }>`
      select t.table_name, ${exists(TRIGGER)} as noted, ${exists(KEYS_TRIGGER)} as keyed, ${exists('statusbot_count_change')} as counted,
        ${exists(UNCACHED_TRIGGER)} as uncached
      from information_schema.tables t
      where t.table_schema = current_schema() and t.table_type = 'BASE TABLE'`.execute(trx);
    // Triggers are made only where missing: one made anew would take its table's lock while other replicas serve.
    for (const { table_name: table, noted, keyed, counted, uncached } of rows) {
      // Databases made before replicas listened kept a counter row instead.
      if (counted) await sql`drop trigger statusbot_count_change on ${sql.table(table)}`.execute(trx);
      if (!keyed && KEY_TABLES.includes(table)) {
        await sql`create trigger ${sql.raw(KEYS_TRIGGER)} after insert or update or delete or truncate on ${sql.table(table)}
          for each statement execute function ${sql.raw(TRIGGER)}(${sql.lit(KEYS_CHANGED_PREFIX)})`.execute(trx);
      }
      if (!uncached && UNCACHED_TABLES.includes(table)) {
        await sql`create trigger ${sql.raw(UNCACHED_TRIGGER)} after insert or update or delete or truncate on ${sql.table(table)}
          for each statement execute function ${sql.raw(TRIGGER)}(${sql.lit(UNCACHED_CHANGE_PREFIX)})`.execute(trx);
      }
      const wanted = !UNNOTED_TABLES.includes(table) && !UNCACHED_TABLES.includes(table);
      if (noted && !wanted) await sql`drop trigger ${sql.raw(TRIGGER)} on ${sql.table(table)}`.execute(trx);
      if (noted || !wanted) continue;
      await sql`create trigger ${sql.raw(TRIGGER)} after insert or update or delete or truncate on ${sql.table(table)}
        for each statement execute function ${sql.raw(TRIGGER)}()`.execute(trx);
    }
  });
}

const GENERATION_TABLE = 'statusbot_generation';
const SQLITE_TRIGGER = 'statusbot_changed';
const generations = new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement>();

/**
 * SQLite: the generation the triggers of noteChangesOnSqlite move, or, before
 * they are made (a database not migrated yet), the data_version read.
 */
function generationOf(sqlite: BetterSqlite3.Database, version: unknown): string {
  try {
    let read = generations.get(sqlite);
    if (!read) {
      read = sqlite.prepare(`select generation from ${GENERATION_TABLE} where id = 1`).pluck();
      generations.set(sqlite, read);
    }
    const generation: unknown = read.get();
    if (generation !== undefined) return `g${String(generation)}`;
  } catch {
    // No such table yet.
  }
  return `v${String(version)}`;
}

/**
 * SQLite's counterpart of noteChangesOnPostgres. data_version moves with
 * every commit of another connection, delivery's bookkeeping included, which
 * on two processes sharing a file made every cached read and page be read
 * and rendered again throughout a drain. A trigger on every table but
 * UNCACHED_TABLES and UNNOTED_TABLES moves a generation in the database, by
 * whatever writes it (another statusbot, the CLI, a sqlite3 shell), so a
 * process reads the generation when data_version moved and keeps its caches
 * when it did not. Applied at every start, after the migrations, for every
 * table they created.
 */
export async function noteChangesOnSqlite(db: Db): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`create table if not exists ${sql.table(GENERATION_TABLE)} (id integer primary key check (id = 1), generation integer not null)`.execute(trx);
    await sql`insert or ignore into ${sql.table(GENERATION_TABLE)} (id, generation) values (1, 0)`.execute(trx);
    const { rows: tables } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(trx);
    // A trigger follows its table when a migration renames it: made only where it is on the table it is named after.
    const { rows: triggers } = await sql<{ name: string; tbl_name: string }>`select name, tbl_name from sqlite_master where type = 'trigger'`.execute(trx);
    const made = new Set<string>();
    for (const t of triggers) {
      if (t.name.startsWith(`${SQLITE_TRIGGER}_${t.tbl_name}_`)) made.add(t.name);
      else if (t.name.startsWith(`${SQLITE_TRIGGER}_`)) await sql`drop trigger ${sql.id(t.name)}`.execute(trx);
    }
    for (const { name: table } of tables) {
      const wanted = table !== GENERATION_TABLE && !UNNOTED_TABLES.includes(table) && !UNCACHED_TABLES.includes(table);
      for (const event of ['insert', 'update', 'delete'] as const) {
        const trigger = `${SQLITE_TRIGGER}_${table}_${event}`;
        if (made.has(trigger) && !wanted) await sql`drop trigger ${sql.id(trigger)}`.execute(trx);
        if (made.has(trigger) || !wanted) continue;
        await sql`create trigger ${sql.id(trigger)} after ${sql.raw(event)} on ${sql.table(table)}
          begin update ${sql.table(GENERATION_TABLE)} set generation = generation + 1 where id = 1; end`.execute(trx);
      }
    }
  });
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
  if (error instanceof DatabaseUnavailableError || refusesConnectionsNow(error)) return true;
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

const PREPARED_LIMIT = 1_000;
const preparedNames = new Map<string, string>();

/**
 * Which name a statement is prepared under on PostgreSQL: parsing and planning
 * cost more than running the small statements the API issues, so each SQL text
 * is prepared once per connection and then only bound and run. Other
 * statements (schema changes, transaction control) and texts beyond the first
 * PREPARED_LIMIT (lists of varying length make new ones) run unprepared.
 */
function preparedNameOf(text: string): string | null {
  let name = preparedNames.get(text);
  if (name) return name;
  if (preparedNames.size >= PREPARED_LIMIT || !/^\s*(select|insert|update|delete|with)\b/i.test(text)) return null;
  name = `statusbot_${preparedNames.size + 1}`;
  preparedNames.set(text, name);
  return name;
}

/** What a statement means for this process's read caches and for what authenticated keys are remembered under (see `keysMarker`). */
type WriteEffect = 'none' | /** writes a table a read may show */ 'writes' | /** writes API keys or companies */ 'writesKeys' | 'begin' | 'commit' | 'rollback';
const writeEffects = new Map<string, WriteEffect>();
// `for update` / `for no key update` lock rows; they write nothing. An upsert's `on conflict … do update set` writes
// the table its `insert into` names, not one called "set".
const WRITE = /(?<!\b(?:for\s+(?:no\s+key\s+)?|do\s+))\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+"?(\w+)"?/gi;

function writeEffectOf(text: string): WriteEffect {
  let effect = writeEffects.get(text);
  if (effect === undefined) {
    if (/^\s*(begin|start\s+transaction)\b/i.test(text)) effect = 'begin';
    else if (/^\s*(commit|end)\s*;?\s*$/i.test(text)) effect = 'commit';
    else if (/^\s*rollback\s*;?\s*$/i.test(text)) effect = 'rollback';
    else {
      const tables = [...text.matchAll(WRITE)].map((m) => m[1]!.toLowerCase());
      if (tables.some((t) => KEY_TABLES.includes(t))) effect = 'writesKeys';
      else effect = tables.some((t) => !UNNOTED_TABLES.includes(t) && !UNCACHED_TABLES.includes(t)) ? 'writes' : 'none';
    }
    if (writeEffects.size < PREPARED_LIMIT * 2) writeEffects.set(text, effect);
  }
  return effect;
}

/**
 * A pg client that runs kysely's parameterized statements as named, prepared
 * ones (see preparedNameOf). A connection that breaks while in use (a server
 * restart) fails its queries; the client's own `error` event then must not end
 * the process (the pool listens only to idle clients), and the pool drops the
 * client when it comes back.
 *
 * It also tells the change feed, once a write is committed, what changed:
 * this process's next read must not be answered from a cache made before it
 * (whatever wrote it: the writer, a job, `apply` in this process), and after
 * a change to API keys or companies its next request must look its key up
 * again, both even before the commit's notification comes back to it (other
 * replicas hear that notification before the writer answers).
 */
class PreparingClient extends pg.Client {
  /** Set by the pool's client class (see openPostgres). */
  protected feed: ChangeFeed | null = null;
  #inTransaction = false;
  #written: 'none' | 'writes' | 'writesKeys' = 'none';

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }

  // pg's query() has many overloads; kysely calls query(text, values).
  override query(...args: unknown[]): never {
    const [text, values] = args;
    const name = typeof text === 'string' && Array.isArray(values) ? preparedNameOf(text) : null;
    const run = super.query as (...a: unknown[]) => never;
    const result = name ? run.call(this, { name, text, values }) : run.apply(this, args);
    if (typeof text !== 'string' || !this.feed) return result;
    const effect = writeEffectOf(text);
    switch (effect) {
      case 'none':
        return result;
      case 'begin':
      case 'rollback':
        this.#inTransaction = effect === 'begin';
        this.#written = 'none';
        return result;
      case 'writes':
      case 'writesKeys':
        if (!this.#inTransaction) return this.#thenChanged(result, effect);
        if (this.#written !== 'writesKeys') this.#written = effect;
        return result;
      case 'commit': {
        const written = this.#written;
        this.#inTransaction = false;
        this.#written = 'none';
        return written === 'none' ? result : this.#thenChanged(result, written);
      }
    }
  }

  /** Once the statement is done (or failed: it may have committed all the same), before its caller goes on. */
  #thenChanged(result: never, written: 'writes' | 'writesKeys'): never {
    const feed = this.feed!;
    const tell = () => {
      feed.changedHere();
      if (written === 'writesKeys') feed.keysChanged();
    };
    const pending = result as Promise<unknown> | undefined;
    // Called with a callback (kysely never does), pg returns nothing to wait for: tell at once.
    if (typeof pending?.finally !== 'function') {
      tell();
      return result;
    }
    return pending.finally(tell) as never;
  }
}

/** Ending the pool (kysely's destroy) also ends the change feed's connection. */
class FeedClosingPool extends pg.Pool {
  constructor(
    private readonly feed: ChangeFeed,
    config: pg.PoolConfig,
  ) {
    super(config);
  }
  override async end(): Promise<void> {
    await this.feed.close();
    return super.end();
  }
}

const feeds = new WeakMap<Db, ChangeFeed>();
const poolSizes = new WeakMap<Db, number>();

/** PostgreSQL: the connections in the pool; SQLite: 1 (one connection). */
export const poolSizeOf = (db: Db): number => poolSizes.get(db) ?? 1;

/** The change feed of a PostgreSQL database (null for SQLite, where commits are seen through the file). */
export const changeFeedOf = (db: Db): ChangeFeed | null => feeds.get(db) ?? null;

function openPostgres(url: string, poolSize: number): Db {
  // A request waits at most 5 s for a connection: while the server is down, requests fail fast with 503.
  const feed = new ChangeFeed(url);
  const Client = class extends PreparingClient {
    protected override feed = feed;
  };
  const pool = new FeedClosingPool(feed, { connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000, Client });
  // An idle connection that breaks (a restart of the server) is replaced by the pool; it must not end the process.
  pool.on('error', () => undefined);
  // Sent before the connection's first statement (a client runs its queries in order); a failure shows there.
  pool.on('connect', (client) => void client.query(SERVER_KEEPALIVES).catch(() => undefined));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  targets.set(db, targetOf(url));
  feeds.set(db, feed);
  poolSizes.set(db, poolSize);
  markers.set(db, () => feed.marker());
  return db;
}

/**
 * Makes the missing folders of `folder`, from the outermost one. Not `mkdirSync`'s
 * `recursive`: under a place that refuses every new name (/proc) it retries forever.
 */
export function makeFolders(folder: string): void {
  if (existsSync(folder)) return;
  const parent = dirname(folder);
  if (parent !== folder) makeFolders(parent);
  mkdirSync(folder);
}

const WAL_CHECKPOINT_PAGES = 100;

export function openDatabase(options: OpenDatabaseOptions): Db {
  if (isPostgresUrl(options.path)) return openPostgres(options.path, options.poolSize ?? 10);
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
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let version: unknown = dataVersion.get();
  let foreign = generationOf(sqlite, version);
  let checkedAt = performance.now();
  // The marker's text is made again only when one of its parts moved: it is asked for by every cached read.
  let marker = '';
  let markedWrites = -1;
  let markedForeign = '';
  markers.set(db, () => {
    const now = performance.now();
    if (now - checkedAt >= FOREIGN_CHANGE_DELAY_MS) {
      checkedAt = now;
      const latest = dataVersion.get();
      // Another connection committed: whether it changed anything a read shows, the generation says.
      if (latest !== version) {
        version = latest;
        foreign = generationOf(sqlite, version);
      }
    }
    if (ownWrites !== markedWrites || foreign !== markedForeign) {
      markedWrites = ownWrites;
      markedForeign = foreign;
      marker = `${ownWrites}.${foreign}`;
    }
    return marker;
  });
  return db;
}
