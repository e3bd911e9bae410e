import type { CompiledQuery } from 'kysely';
import type { Compilable, Kysely } from 'kysely';
import { engineOf } from './database.js';
import type { Database } from './schema.js';

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
