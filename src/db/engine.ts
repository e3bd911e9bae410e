import type { CompiledQuery, Expression, Kysely, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { Database, OutboxRow } from './schema.js';

/*
 * What src/db asks of a database engine, and all it knows of one: each
 * engine answers in its folder of src/db/dialects/ (the same file names in
 * each, one concern per file), and nothing else in src/db names an engine.
 */

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

/** How this process hears of the commits of other processes, where they are told (several replicas on one server). */
export interface ChangeFeedView {
  /** This process, as other replicas name it. */
  readonly replica: string;
  /** Whether changes are heard now (caches may be used, claims of replicas gone may be taken over). */
  readonly listening: boolean;
  /** This process committed a change to API keys or companies. */
  keysChanged(): void;
}

/** A database opened by an engine (see connection.ts of each). */
export interface OpenedDatabase<F extends ChangeFeedView = ChangeFeedView> {
  db: Kysely<Database>;
  /** A value that changes whenever the database changes, in this process or another (see database.ts, changeMarker). */
  marker(): string;
  /** A value that changes whenever API keys or companies may have changed (see database.ts, keysMarker). */
  keysMarker(): string;
  /** The feed that tells of other processes' commits; null where they are seen otherwise. */
  feed: F | null;
  /** Connections to the database. */
  poolSize: number;
  /** Whether the database answers now. */
  answers(): Promise<boolean>;
  /** Why the database cannot be used, in one line, or null when it answers. */
  unusable(): Promise<string | null>;
}

/** The queries the domain needs written each engine's way (see dialect.ts, Dialect). */
export interface EngineQueries {
  /** The SQL functions that make a JSON object of names and values, and a JSON list of a group's values (see jsonRows). */
  readonly json: { object: string; list: string };
  /**
   * Runs writes that do not depend on one another's results, in as few round
   * trips as the engine allows. `read`, a select, runs first and its rows are
   * returned; the writes may use it as the part named `read` where they run
   * as one statement. Parts of one statement see the database as it was
   * before it (not each other's rows).
   */
  batchWrites<R = never>(db: Kysely<Database>, writes: readonly CompiledQuery[], read?: CompiledQuery<R>): Promise<R[]>;
  /**
   * The statements that queue these rows, to run in the transaction of the
   * change they tell of; those marked `guarded` only where `guard` holds when
   * they run (engines whose locking reads may predate the lock; elsewhere the guard always holds).
   */
  outboxWrites(db: Kysely<Database>, rows: readonly { row: OutboxRow; guarded: boolean }[], guard?: Expression<SqlBool>): CompiledQuery[];
  /**
   * Whether a read that takes a row lock may see the other rows it reads as
   * they were before it waited for the lock (several writers at once): what
   * depends on them is then written under a guard (see outboxWrites).
   */
  readonly lockingReadsMayPredateLock: boolean;
  /** Whether other processes may take the same work from this database (replicas): claims are then made under row locks. */
  readonly sharedByProcesses: boolean;
  /** A query of rows to claim, locking them against other processes' claims and skipping those another holds. */
  // biome-ignore lint/suspicious/noExplicitAny: any select may be claimed
  forClaim<Q extends SelectQueryBuilder<Database, any, object>>(query: Q, table: string): Q;
  /**
   * Where a statement costs a round trip: the next id of a table, reserved by
   * a column of a read (so that a change's writes, which name it, go out as
   * one statement); null where ids are read back from the insert (RETURNING).
   */
  reservedId(table: 'incidents'): RawBuilder<number> | null;
  /** After rows were written with ids the config gives (or copied): the next generated id comes after them. */
  afterGivenIds(trx: Kysely<Database>, table: string): Promise<void>;
  /** An order of a table's rows that stays the same from one read to the next (for a copy in batches). */
  readonly stableOrder: RawBuilder<unknown>;
}

/** Where a unit's outcome stands once its transaction is done. */
export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown } | { ok: 'later' };

/** A unit of writing: it uses only the transaction it is given. */
export type WriteUnit<T> = (trx: Kysely<Database>) => Promise<T>;

/** One transaction of the writer (see writer.ts), as its engine runs it. */
export interface WriterTransaction {
  /**
   * Runs the units of a batch of several; null when the transaction must be
   * undone and each unit run again alone. `later`: a unit to run in a later transaction.
   */
  runUnits(units: readonly WriteUnit<unknown>[]): Promise<Outcome[] | null>;
  /** Runs the one unit of a batch. */
  runUnit(unit: WriteUnit<unknown>): Promise<Outcome>;
  /**
   * Commits the transaction whose units ended as `outcomes`. Resolves once
   * committed, with what to wait for before answering (`seen`: every process
   * that caches reads has heard of it), or null when nothing is to be waited for.
   */
  commit(outcomes: readonly Outcome[]): Promise<{ seen: Promise<void> } | null>;
  rollback(): Promise<void>;
}

/** The engine's part of the writer (see writer.ts, createWriter). */
export interface WriterEngine {
  /** Transactions that may run at once. */
  readonly slots: number;
  /** Whether a slot lets the event loop turn before each batch (for units that arrive meanwhile to join it), with `running` slots busy. */
  waitsForMore(running: number): boolean;
  /** Runs `fn` in a transaction, which `fn` ends; `durable`: its commit is on disk before it resolves. */
  inTransaction<T>(durable: boolean, fn: (tx: WriterTransaction) => Promise<T>): Promise<T>;
}

/** A read that takes a service's lock for a change: its row, or undefined when there is none to lock. */
export type ServiceLockingRead<P extends string, R> = (trx: Kysely<Database>, args: Record<P, unknown>) => Promise<R | undefined>;

/** The rows of `services` a locking read selects (see locks.ts). */
export type ServiceRows<P extends string, R extends object> = (
  db: Kysely<Database>,
  p: Record<P, never>,
) => SelectQueryBuilder<Database, 'services', R> | SelectQueryBuilder<Database, 'services' | 'incidents', R>;

/** How an engine makes a transaction the only one changing a service (see locks.ts). */
export interface EngineLocks {
  serviceLockingRead<P extends string, R extends object>(rows: ServiceRows<P, R>): ServiceLockingRead<P, R>;
  /** Whether a transaction must take the lock (engines that run write transactions side by side); else one at a time already gives it. */
  readonly needed: boolean;
}

/** Any kysely database, whatever its tables. */
export type AnyDatabase = Pick<Kysely<unknown>, 'getExecutor'>;

/** A database engine: each of src/db/dialects/ gives one (its index.ts). */
export interface Engine {
  /** Whether `path`, a `--db` value, names a database of this engine. */
  names(path: string): boolean;
  /** How logs name the database `path` names (never a password). */
  label(path: string): string;
  /** Opens the database `options.path` names. */
  open(options: OpenDatabaseOptions): OpenedDatabase;
  /** Whether `db` runs on this engine. */
  runs(db: AnyDatabase): boolean;
  readonly queries: EngineQueries;
  readonly locks: EngineLocks;
  /** The writer's transactions on `db`. */
  writer(db: Kysely<Database>, opened: OpenedDatabase | undefined): WriterEngine;
  /** Makes what tells other processes of this database's changes (triggers), after the migrations, for every table they made. */
  noteChanges(db: Kysely<Database>): Promise<void>;
}
