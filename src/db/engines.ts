import { postgresEngine } from './dialects/postgres/index.js';
import { sqliteEngine } from './dialects/sqlite/index.js';
import type { AnyDatabase, Engine } from './engine.js';

/** Every engine, in the order they are asked whether a `--db` value names theirs: the last takes any. */
const ENGINES: readonly Engine[] = [postgresEngine, sqliteEngine];

/** The engine of the database `path` (a `--db` value) names. */
export const engineFor = (path: string): Engine => ENGINES.find((engine) => engine.names(path))!;

/** By the adapter of a database, the same object for all its handles (transactions, connections). */
const byAdapter = new WeakMap<object, Engine>();

/** The engine `db` runs on. */
export function engineOf(db: AnyDatabase): Engine {
  const adapter = db.getExecutor().adapter;
  let engine = byAdapter.get(adapter);
  if (!engine) {
    engine = ENGINES.find((e) => e.runs(db));
    if (!engine) throw new Error('the database runs on an engine statusbot does not know');
    byAdapter.set(adapter, engine);
  }
  return engine;
}
