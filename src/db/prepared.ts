import { CompiledQuery } from 'kysely';
import type { Compilable, Kysely } from 'kysely';
import { engineOf } from './database.js';
import type { Database } from './schema.js';

const MARK = '\u0000statusbot-param:';

export interface PreparedQuery<P extends string, R> {
  (db: Kysely<Database>, args: Record<P, unknown>): Promise<R[]>;
  /** The statement with these values, not yet run: for `runWrites`. */
  bind(db: Kysely<Database>, args: Record<P, unknown>): CompiledQuery<R>;
}

/**
 * A query built and compiled once, then run with new parameter values. Building
 * a kysely query costs several times more than running it on SQLite, so the
 * queries on the API's hot paths are prepared. `build` receives named
 * placeholders; each must be used as a plain value (not inside an `in` list).
 */
export function prepared<P extends string, R>(build: (db: Kysely<Database>, params: Record<P, never>) => Compilable<R>): PreparedQuery<P, R> {
  // Compiled once per engine: SQLite and PostgreSQL write parameters differently (`?`, `$1`).
  const byEngine = new Map<string, { compiled: CompiledQuery<R>; slots: (P | null)[] }>();
  const placeholders = new Proxy({}, { get: (_target, key) => `${MARK}${String(key)}` }) as Record<P, never>;
  const bind = (db: Kysely<Database>, args: Record<P, unknown>): CompiledQuery<R> => {
    const engine = engineOf(db);
    let entry = byEngine.get(engine);
    if (!entry) {
      const compiled = build(db, placeholders).compile();
      const slots = compiled.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? (v.slice(MARK.length) as P) : null));
      entry = { compiled, slots };
      byEngine.set(engine, entry);
    }
    const { compiled, slots } = entry;
    const fixed = compiled.parameters;
    return { ...compiled, parameters: slots.map((slot, i) => (slot === null ? fixed[i] : args[slot])) };
  };
  const run = async (db: Kysely<Database>, args: Record<P, unknown>): Promise<R[]> => (await db.executeQuery<R>(bind(db, args))).rows;
  return Object.assign(run, { bind });
}

const together = new Map<string, string>();
const TOGETHER_LIMIT = 200;
// Texts by a short id: the texts come from prepared queries, each one string that keeps its hash, unlike a text joined anew.
const textIds = new Map<string, number>();
const textId = (text: string): number => {
  let id = textIds.get(text);
  if (id === undefined) {
    if (textIds.size >= TOGETHER_LIMIT * 4) {
      textIds.clear();
      together.clear();
    }
    id = textIds.size;
    textIds.set(text, id);
  }
  return id;
};

/**
 * Runs writes that do not depend on one another's results, in this order on
 * SQLite; on PostgreSQL as one statement (each a `with` part of it), as a
 * round trip costs more than the small writes it carries. The parts see the
 * database as it was before the statement (not each other's rows); foreign
 * keys are checked once all have run. `read`, a select, runs first, and its
 * rows are returned; on PostgreSQL it is the part named `read`, which the
 * writes may use. Parameters must appear in the texts only as kysely writes
 * them (`$1`, …), as they are renumbered.
 */
export async function runWrites<R = never>(db: Kysely<Database>, writes: readonly CompiledQuery[], read?: CompiledQuery<R>): Promise<R[]> {
  if (engineOf(db) !== 'postgres' || (writes.length < 2 && !read)) {
    const rows = read ? (await db.executeQuery(read)).rows : [];
    for (const write of writes) await db.executeQuery(write);
    return rows;
  }
  const parts = read ? [read, ...writes] : writes;
  const key = parts.map((w) => textId(w.sql)).join(' ');
  let text = together.get(key);
  if (text === undefined) {
    let offset = 0;
    const shifted = parts.map((w) => {
      const sql = offset === 0 ? w.sql : w.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
      offset += w.parameters.length;
      return sql;
    });
    const names = parts.map((_, i) => (read ? (i === 0 ? 'read' : `w${i - 1}`) : `w${i}`));
    text = `with ${shifted.map((sql, i) => `${names[i]} as (${sql})`).join(', ')} ${read ? 'select * from read' : 'select 1'}`;
    if (together.size >= TOGETHER_LIMIT) together.clear();
    together.set(key, text);
  }
  return (
    await db.executeQuery<R>(
      CompiledQuery.raw(
        text,
        parts.flatMap((w) => w.parameters),
      ) as CompiledQuery<R>,
    )
  ).rows;
}
