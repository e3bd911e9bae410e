import type { CompiledQuery } from 'kysely';
import type { Compilable, Kysely } from 'kysely';
import type { Database } from './schema.js';
import { knowStatement } from './write-effects.js';

const MARK = '\u0000statusbot-param:';

export interface PreparedQuery<P extends string, R> {
  (db: Kysely<Database>, args: Record<P, unknown>): Promise<R[]>;
  /** The statement with these values, not yet run: for `batchWrites`. */
  bind(db: Kysely<Database>, args: Record<P, unknown>): CompiledQuery<R>;
}

/**
 * A query built and compiled once, then run with new parameter values. Building
 * a kysely query costs several times more than running it on SQLite, so the
 * queries on the API's hot paths are prepared. `build` receives named
 * placeholders; each must be used as a plain value (not inside an `in` list).
 */
export function prepared<P extends string, R>(build: (db: Kysely<Database>, params: Record<P, never>) => Compilable<R>): PreparedQuery<P, R> {
  // Compiled once per database: engines write parameters differently (`?`, `$1`). Its adapter is the same object for
  // every handle of one database (its transactions, its connections).
  const byDatabase = new WeakMap<object, { compiled: CompiledQuery<R>; slots: (P | null)[] }>();
  const placeholders = new Proxy({}, { get: (_target, key) => `${MARK}${String(key)}` }) as Record<P, never>;
  const bind = (db: Kysely<Database>, args: Record<P, unknown>): CompiledQuery<R> => {
    const adapter = db.getExecutor().adapter;
    let entry = byDatabase.get(adapter);
    if (!entry) {
      const compiled = build(db, placeholders).compile();
      knowStatement(compiled);
      const slots = compiled.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARK) ? (v.slice(MARK.length) as P) : null));
      entry = { compiled, slots };
      byDatabase.set(adapter, entry);
    }
    const { compiled, slots } = entry;
    const fixed = compiled.parameters;
    return { ...compiled, parameters: slots.map((slot, i) => (slot === null ? fixed[i] : args[slot])) };
  };
  const run = async (db: Kysely<Database>, args: Record<P, unknown>): Promise<R[]> => (await db.executeQuery<R>(bind(db, args))).rows;
  return Object.assign(run, { bind });
}
