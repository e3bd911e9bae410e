import type BetterSqlite3 from 'better-sqlite3';
import { GENERATION_TABLE } from './triggers.js';

/*
 * SQLite: how this process hears of changes. Its own writes are counted as
 * they run (see connection.ts); other processes' commits move the file's
 * data_version, and whether they changed anything a read shows, the
 * generation the change triggers move (see triggers.ts).
 */

/** How long a commit by another process may stay unseen by the change marker. */
export const FOREIGN_CHANGE_DELAY_MS = 1;

const generations = new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement>();

/**
 * The generation the triggers of triggers.ts move, or, before they are made
 * (a database not migrated yet), the data_version read.
 */
function generationOf(sqlite: BetterSqlite3.Database, version: unknown): string {
  try {
    let read = generations.get(sqlite);
    if (!read) {
      read = sqlite.prepare(`select generation from ${GENERATION_TABLE} where id = 1`).pluck();
      generations.set(sqlite, read);
    }
    const generation: unknown = read.get();
    if (generation !== undefined) return `g${String(generation)}`;
  } catch {
    // No such table yet.
  }
  return `v${String(version)}`;
}

/**
 * A value that changes at once for writes of this connection (`ownWrites`, a
 * count of the statements that may write, kept as they run), and within
 * FOREIGN_CHANGE_DELAY_MS for commits of other processes (data_version, which
 * takes a file lock, so under load it is read once per interval, not per call).
 */
export function changeMarker(sqlite: BetterSqlite3.Database, ownWrites: () => number): () => string {
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let version: unknown = dataVersion.get();
  let foreign = generationOf(sqlite, version);
  let checkedAt = performance.now();
  // The marker's text is made again only when one of its parts moved: it is asked for by every cached read.
  let marker = '';
  let markedWrites = -1;
  let markedForeign = '';
  return () => {
    const now = performance.now();
    if (now - checkedAt >= FOREIGN_CHANGE_DELAY_MS) {
      checkedAt = now;
      const latest = dataVersion.get();
      // Another connection committed: whether it changed anything a read shows, the generation says.
      if (latest !== version) {
        version = latest;
        foreign = generationOf(sqlite, version);
      }
    }
    const writes = ownWrites();
    if (writes !== markedWrites || foreign !== markedForeign) {
      markedWrites = writes;
      markedForeign = foreign;
      marker = `${writes}.${foreign}`;
    }
    return marker;
  };
}
