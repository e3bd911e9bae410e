import { z } from 'zod';
import { sql } from 'kysely';
import { configFileSchema } from '../../src/config/config-schema.js';
import { openDatabase } from '../../src/db/database.js';
import { isPostgresUrl } from '../../src/db/database-url.js';
import { createTestDatabase } from './test-database.js';

/*
 * The kinds of a plug-in family as the rest of the product declares them (the
 * config file's schema, the database's CHECK constraints), for the tests that
 * hold each family's registry to them both ways.
 */

type JsonSchema = { properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; enum?: unknown[] };

const CONFIG = z.toJSONSchema(configFileSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** The schemas a config key may be, lists and unions passed through. */
function alternatives(schema: JsonSchema): JsonSchema[] {
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.items ? [schema.items] : [])];
  return [schema, ...branches.flatMap(alternatives)];
}

/** The object schemas at a path of config keys (`['companies', 'monitors']`: a company's monitors). */
function at(path: readonly string[]): JsonSchema[] {
  let found = alternatives(CONFIG);
  for (const key of path) found = found.flatMap((s) => (s.properties?.[key] ? alternatives(s.properties[key]) : []));
  return found.filter((s) => s.properties !== undefined || s.enum !== undefined);
}

/** The values the config file accepts at a path, as its schema's enum says. */
export function configEnum(path: readonly string[]): string[] {
  const values = at(path).flatMap((s) => (s.enum ?? []) as string[]);
  if (values.length === 0) throw new Error(`the config schema has no enum at ${path.join('.')}`);
  return [...new Set(values)].sort();
}

/** The keys of the config's object at a path (a destination is an object of one key, its kind). */
export function configKeys(path: readonly string[]): string[] {
  const keys = at(path).flatMap((s) => Object.keys(s.properties ?? {}));
  if (keys.length === 0) throw new Error(`the config schema has no object at ${path.join('.')}`);
  return [...new Set(keys)].sort();
}

/** The values a column's CHECK constraint allows in a migrated database of the engine under test. */
export async function checkedValues(table: string, column: string): Promise<string[]> {
  const database = await createTestDatabase();
  const db = openDatabase({ path: database.path });
  try {
    const definitions = isPostgresUrl(database.path)
      ? (
          await sql<{ definition: string }>`select pg_get_constraintdef(c.oid) as definition from pg_constraint c
            join pg_class t on t.oid = c.conrelid where t.relname = ${table} and c.contype = 'c'`.execute(db)
        ).rows.map((r) => r.definition)
      : (await sql<{ definition: string }>`select sql as definition from sqlite_master where type = 'table' and name = ${table}`.execute(db)).rows.flatMap(
          (r) => r.definition.match(new RegExp(`\\b${column}\\b\\s+in\\s*\\([^)]*\\)`, 'gi')) ?? [],
        );
    const mine = definitions.filter((d) => new RegExp(`\\b${column}\\b`).test(d));
    if (mine.length !== 1) throw new Error(`expected one CHECK on ${table}.${column}, found ${mine.length}: ${mine.join(' | ')}`);
    return [...mine[0]!.matchAll(/'([^']*)'/g)].map((m) => m[1]!).sort();
  } finally {
    await db.destroy();
    await database.drop();
  }
}
