import { PostgresAdapter } from 'kysely';
import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';

/*
 * The one place where the migrations differ by engine. Everything else is the
 * kysely schema builder, the same on SQLite and PostgreSQL: times are epoch
 * milliseconds in `bigint` columns (SQLite's integers are 64-bit whatever their
 * name), flags are 0/1 integers, lists are JSON text.
 */

export const isPostgres = (db: Kysely<unknown>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * An auto-numbered primary key: SQLite's `integer primary key autoincrement`
 * (a rowid alias, which needs the type name `integer`), PostgreSQL's identity column.
 */
export function withId<T extends string>(db: Kysely<unknown>, table: CreateTableBuilder<T, never>, name = 'id'): CreateTableBuilder<T, never> {
  return isPostgres(db)
    ? table.addColumn(name, 'bigint', (c: ColumnDefinitionBuilder) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn(name, 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
}
