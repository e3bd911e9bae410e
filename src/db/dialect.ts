import { sql } from 'kysely';
import type { CompiledQuery, Expression, Insertable, Kysely, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import { changeMarker as markerOf, engineOf, keysMarker as keysMarkerOf } from './database.js';
import { postgresDialect } from './dialects/postgres.js';
import { sqliteDialect } from './dialects/sqlite.js';
import type { Database, JsonRows, OutboxRow } from './schema.js';
import { changesNothingCached as quietUnit, deferInsert as deferToCommit } from './writer.js';

/*
 * What the domain needs of the database engine beneath it, and all it sees of
 * it: the domain asks no engine's name and knows nothing of how the writer
 * groups its units. Each engine's answers live in src/db/dialects/.
 */

export type { JsonRows, OutboxRow };

export interface Dialect {
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
  /** After rows were written with ids the config gives: the next generated id comes after them. */
  afterGivenIds(trx: Kysely<Database>, table: 'services' | 'custom_monitors'): Promise<void>;
}

const DIALECTS: Record<'sqlite' | 'postgres', Dialect> = { sqlite: sqliteDialect, postgres: postgresDialect };

export const dialectOf = (db: Kysely<Database>): Dialect => DIALECTS[engineOf(db)];

/**
 * The rows of a subquery as one JSON list, ordered by one of its columns: a
 * column of the outer query, so that one statement reads several lists.
 * Values come back as JSON has them: numbers, strings, null.
 */
export function jsonRows<O extends object>(
  db: Kysely<Database>,
  // biome-ignore lint/suspicious/noExplicitAny: any table may be the subquery's
  query: SelectQueryBuilder<Database, any, O>,
  columns: readonly (keyof O & string)[],
  orderBy: keyof O & string,
): RawBuilder<JsonRows<O>> {
  const { object, list } = dialectOf(db).json;
  const fields = sql.join(columns.map((c) => sql`${sql.lit(c)}, ${sql.ref(`r.${c}`)}`));
  const rows = sql`${sql.raw(list)}(${sql.raw(object)}(${fields}) order by ${sql.ref(`r.${orderBy}`)})`;
  return sql<JsonRows<O>>`(select coalesce(${rows}, '[]') from (${query}) as r)`;
}
export const rowsOf = <O>(value: JsonRows<O>): O[] => (typeof value === 'string' ? (JSON.parse(value) as O[]) : value);
export const batchWrites = <R = never>(db: Kysely<Database>, writes: readonly CompiledQuery[], read?: CompiledQuery<R>): Promise<R[]> =>
  dialectOf(db).batchWrites(db, writes, read);

/**
 * A row that nothing reads back in its own transaction (an audit row): the
 * writer may insert it with those of the transaction's other units, in one
 * statement before the commit (still in the transaction, and gone with its
 * unit if the unit fails). False where it does not: the caller writes it.
 */
export const deferInsert = <T extends keyof Database & string>(trx: Kysely<Database>, table: T, row: Insertable<Database[T]>): boolean =>
  deferToCommit(trx, table, row);

/**
 * Said by a unit of writing that changes nothing another process caches: it
 * changed nothing at all, or only bookkeeping no read shows (job leases, seen
 * chat requests). Its commit then waits for no other process to hear of it.
 */
export const changesNothingCached = (trx: Kysely<Database>): void => quietUnit(trx);

/** A value that changes whenever the database changes, in this process or another: caches of query results compare it. */
export const changeMarker = (db: Kysely<Database>): string => markerOf(db);

/** A value that changes whenever API keys or companies may have changed: what authenticated keys are remembered under. */
export const keysMarker = (db: Kysely<Database>): string => keysMarkerOf(db);

export { serviceLockingRead, lockService, lockIncident } from './locks.js';
export type { ServiceLockingRead } from './locks.js';

/**
 * `ids` for an `in (…)` list of a length that is a power of two, the last id
 * repeated: a statement's text then takes one of a few shapes, and engines
 * that prepare each text once (PostgreSQL, per connection) keep a few plans
 * rather than one per length.
 */
export function paddedIds<T extends number | string>(ids: readonly T[]): T[] {
  if (ids.length === 0) return [];
  let length = 1;
  while (length < ids.length) length *= 2;
  return [...ids, ...Array<T>(length - ids.length).fill(ids.at(-1)!)];
}
