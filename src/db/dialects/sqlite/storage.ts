import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { migrations } from '../../../../migrations/index.js';

/*
 * SQLite: where the data is kept, a file. How logs name it, its folders made
 * when missing, and what the command line does with the file itself
 * (whether a server holds it, a backup, a restore).
 */

/** How logs name a SQLite database: its file. */
export const labelOf = (path: string): string => path;

/**
 * Makes the missing folders of `folder`, from the outermost one. Not `mkdirSync`'s
 * `recursive`: under a place that refuses every new name (/proc) it retries forever.
 */
export function makeFolders(folder: string): void {
  if (existsSync(folder)) return;
  const parent = dirname(folder);
  if (parent !== folder) makeFolders(parent);
  mkdirSync(folder);
}

/** A backup or restore that cannot be done as asked: one line with the cause and the way out. */
export class SqliteFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqliteFileError';
  }
}

const isBusy = (error: unknown): boolean => /^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown } | null)?.code ?? ''));

/**
 * Whether another connection (a running server, another command) has the
 * database open. A WAL database cannot leave WAL mode while another
 * connection holds it, so asking it to, without waiting, tells; when nobody
 * else does, it is put back in WAL mode at once.
 */
export function sqliteInUse(path: string): boolean {
  if (!existsSync(path)) return false;
  const db = new BetterSqlite3(path, { timeout: 0 });
  try {
    const before = String(db.pragma('journal_mode', { simple: true }));
    if (before !== 'wal') return false;
    const after = String(db.pragma('journal_mode = delete', { simple: true }));
    if (after === 'wal') return true;
    db.pragma('journal_mode = wal');
    return false;
  } catch (error) {
    if (isBusy(error)) return true;
    throw error;
  } finally {
    db.close();
  }
}

/** A file beside `target` that becomes it by one rename; removed when the work fails. */
async function viaSibling(target: string, write: (partial: string) => Promise<void>): Promise<void> {
  const partial = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.partial`);
  makeFolders(dirname(resolve(target)));
  try {
    await write(partial);
    const fd = openSync(partial, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, target);
  } finally {
    for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`, `${partial}-journal`]) rmSync(leftover, { force: true });
  }
}

/**
 * A consistent copy of `from` at `to`, through SQLite's online backup: a
 * server may go on reading and writing `from` meanwhile; the copy holds every
 * transaction committed before it ended. `to` is a single file (no -wal beside
 * it), checked whole, and appears only once complete.
 */
export async function backupSqlite(from: string, to: string): Promise<{ pages: number }> {
  const source = new BetterSqlite3(from, { fileMustExist: true });
  let pages = 0;
  try {
    await viaSibling(to, async (partial) => {
      // Large steps: a step that another connection's commit follows starts the backup over.
      const result = await source.backup(partial, { progress: () => 2_000 });
      pages = result.totalPages;
      const copy = new BetterSqlite3(partial);
      try {
        copy.pragma('journal_mode = delete');
        const check = copy.pragma('integrity_check', { simple: true });
        if (check !== 'ok') throw new SqliteFileError(`the copy of ${from} fails its integrity check (${String(check)}); nothing was written to ${to}`);
      } finally {
        copy.close();
      }
    });
  } finally {
    source.close();
  }
  return { pages };
}

/** What a restore puts in place: a statusbot database of a migration level this version knows. */
export function describeStatusbotFile(path: string): { migration: string } {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new SqliteFileError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const applied = db.prepare('select name from kysely_migration order by name').pluck().all() as string[];
    const unknown = applied.filter((name) => !(name in migrations));
    if (unknown.length > 0) {
      throw new SqliteFileError(`${path} was made by a newer statusbot (migration ${unknown.at(-1)}); restore it with that version`);
    }
    if (applied.length === 0) throw new SqliteFileError(`${path} is not a statusbot database: it has no migrations applied`);
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new SqliteFileError(`${path} is damaged (${String(check)}); restore another backup`);
    return { migration: applied.at(-1)! };
  } catch (error) {
    if (error instanceof SqliteFileError) throw error;
    const code = String((error as { code?: unknown }).code ?? '');
    if (code === 'SQLITE_NOTADB' || /no such table/.test((error as Error).message)) {
      throw new SqliteFileError(`${path} is not a statusbot database`);
    }
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Puts the database `file` in place of `target` in one rename: the target is
 * never half-written. The database it replaces stays beside it, as
 * `TARGET.before-restore-<time>`, unless there was none.
 */
export async function restoreSqlite(file: string, target: string, now: Date): Promise<{ previous: string | null }> {
  const previous = existsSync(target) ? `${target}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}` : null;
  await viaSibling(target, async (partial) => {
    const source = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    try {
      await source.backup(partial);
    } finally {
      source.close();
    }
    const copy = new BetterSqlite3(partial);
    try {
      copy.pragma('journal_mode = wal');
      copy.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      copy.close();
    }
    // A second name for the old database: the rename then swaps the target whole, and the old one is not lost.
    if (previous) linkSync(target, previous);
  });
  return { previous };
}
