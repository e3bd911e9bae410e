import { sql } from 'kysely';
import type { Insertable, Kysely, RawBuilder, SelectQueryBuilder, CompiledQuery } from 'kysely';
import { changeMarker as markerOf, keysMarker as keysMarkerOf } from './database.js';
import type { EngineQueries } from './engine.js';
import { engineOf } from './engines.js';
import type { Database, JsonRows, OutboxRow } from './schema.js';
import { KEY_TABLES } from './write-effects.js';
import { changesNothingCached as quietUnit, deferInsert as deferToCommit } from './writer.js';

/*
 * What the domain needs of the database engine beneath it, and all it sees of
 * it: the domain asks no engine's name and knows nothing of how the writer
 * groups its units or tells other processes of a commit. Each engine's
 * answers live in its folder of src/db/dialects/.
 */

export type { JsonRows, OutboxRow };

/** The queries the domain needs written each engine's way (see EngineQueries). */
export type Dialect = EngineQueries;

export const dialectOf = (db: Kysely<Database>): Dialect => engineOf(db).queries;

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
 * Said by a unit of writing that changes nothing another process caches, for
 * what the writer cannot tell from its tables (see write-effects.ts):
 * delivery's bookkeeping. Its commit then waits for no other process to hear of it.
 */
export const changesNothingCached = (trx: Kysely<Database>): void => quietUnit(trx);

/**
 * A value that changes whenever the database changes, in this process or
 * another: caches of query results compare it. With `tables`, the tables
 * the cached read reads: it may then change only when they may have (API
 * keys and companies, which authenticated keys are remembered with).
 */
export function changeMarker(db: Kysely<Database>, tables?: readonly (keyof Database)[]): string {
  return tables?.every((t) => KEY_TABLES.includes(t)) ? keysMarkerOf(db) : markerOf(db);
}

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
