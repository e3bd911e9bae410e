import { sql } from 'kysely';
import type { Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import { engineOf } from './database.js';
import type { Database } from './schema.js';

/** A list of rows as `jsonRows` reads it: PostgreSQL's driver parses JSON, SQLite's hands over the text. */
export type JsonRows<O> = O[] | string;

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
  const postgres = engineOf(db) === 'postgres';
  const fields = sql.join(columns.map((c) => sql`${sql.lit(c)}, ${sql.ref(`r.${c}`)}`));
  const row = postgres ? sql`json_build_object(${fields})` : sql`json_object(${fields})`;
  const list = postgres ? sql`json_agg(${row} order by ${sql.ref(`r.${orderBy}`)})` : sql`json_group_array(${row} order by ${sql.ref(`r.${orderBy}`)})`;
  return sql<JsonRows<O>>`(select coalesce(${list}, '[]') from (${query}) as r)`;
}

export const rowsOf = <O>(value: JsonRows<O>): O[] => (typeof value === 'string' ? (JSON.parse(value) as O[]) : value);
