import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Each database engine lives in its folder of src/db/dialects/, with the same
 * file names in each (a reader who knows one knows the other); the rest of
 * src/db only calls the engine it is given, and names none.
 */

const DB = fileURLToPath(new URL('../../src/db/', import.meta.url));
const DIALECTS = join(DB, 'dialects');

/** Every file under `folder`, as paths relative to it. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path).map((f) => join(name, f)) : [name];
  });
}

/** The source without its comments (which may well speak of an engine), strings and regular expressions kept. */
const withoutComments = (source: string): string => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** What in `source` ties it to one engine: an engine's driver imported, its kysely classes, an instanceof of them, its name in a comparison. */
function engineNamings(source: string): string[] {
  const code = withoutComments(source);
  const found: string[] = [];
  for (const m of code.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const module = m[1] ?? m[2] ?? m[3]!;
    if (/^(pg|pg-[\w-]+|better-sqlite3|sqlite3|postgres|mysql2?)$/.test(module)) found.push(`imports ${module}`);
  }
  for (const m of code.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"]kysely['"]/g)) {
    for (const name of m[1]!.split(',').map((n) => n.trim().split(/\s+as\s+/)[0]!)) {
      if (/^(Postgres|Sqlite|Mysql|Mssql)/.test(name)) found.push(`imports kysely's ${name}`);
    }
  }
  for (const m of code.matchAll(/\binstanceof\s+([\w.]+)/g)) {
    if (/postgres|sqlite|mysql|\bpg\b/i.test(m[1]!)) found.push(`instanceof ${m[1]}`);
  }
  for (const m of code.matchAll(/(['"`])(postgres|postgresql|sqlite|sqlite3|pg|mysql)\1/gi)) found.push(`names ${m[0]}`);
  return found;
}

describe('the database engines', () => {
  it('each have a folder in src/db/dialects/, with the same file names', () => {
    const entries = readdirSync(DIALECTS);
    for (const name of entries) expect(statSync(join(DIALECTS, name)).isDirectory(), `src/db/dialects/${name} is not an engine's folder`).toBe(true);
    expect(entries.length).toBeGreaterThanOrEqual(2);
    const [first, ...others] = entries.map((name) => ({ name, files: filesUnder(join(DIALECTS, name)).sort() }));
    for (const other of others) expect(other.files, `src/db/dialects/${other.name} and ${first!.name}`).toEqual(first!.files);
  });

  it('are named nowhere else in src/db: the rest of it calls the engine it is given', () => {
    const outside = filesUnder(DB).filter((f) => /\.tsx?$/.test(f) && !f.startsWith(`dialects/`));
    expect(outside.length).toBeGreaterThan(5);
    const namings = outside.flatMap((f) => engineNamings(readFileSync(join(DB, f), 'utf8')).map((n) => `${relative(DB, join(DB, f))}: ${n}`));
    expect(namings).toEqual([]);
  });

  it('are told apart by the check above, whatever form the naming takes', () => {
    const bad = [
      "import pg from 'pg';",
      "import BetterSqlite3 from 'better-sqlite3';",
      "const { Pool } = await import('pg');",
      "import { Kysely, PostgresAdapter } from 'kysely';",
      "import type { SqliteDatabase } from 'kysely';",
      'if (adapter instanceof PostgresAdapter) run();',
      "if (engineOf(db) === 'postgres') run();",
      'const order = engine === "sqlite" ? a : b;',
      'switch (kind) { case `pg`: break; }',
    ];
    for (const line of bad) expect(engineNamings(line), line).not.toEqual([]);
    const fine = [
      "import { sql } from 'kysely';",
      '// on PostgreSQL, a row lock; on SQLite, nothing',
      "throw new Error('a SQLite file or a PostgreSQL URL');",
      'if (engineOf(db).locks.needed) await lock(trx);',
    ];
    for (const line of fine) expect(engineNamings(line), line).toEqual([]);
  });
});
