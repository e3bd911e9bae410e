import { accessSync, constants, existsSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DatabaseUnavailableError, openDatabase } from '../db/database.js';
import { isPostgresUrl } from '../db/database-url.js';
import { migrateToLatest } from '../db/migrate.js';
import { systemClock } from '../domain/clock.js';
import { createDomainContext } from '../domain/context.js';
import type { DomainContext } from '../domain/context.js';
import { CommandError } from './cli-errors.js';

const WAY_OUT = 'choose another path with --db (or STATUSBOT_DB)';

const isSqliteFile = (path: string): boolean => !isPostgresUrl(path) && path !== ':memory:';

/**
 * Every command but serve and migrate refuses a SQLite file that is not there, rather than make an empty one
 * and work on it: a mistyped path would otherwise be a new database, silently.
 */
export function mustExist(dbPath: string): void {
  if (isSqliteFile(dbPath) && !existsSync(dbPath)) {
    throw new DatabaseUnavailableError(
      `there is no database at ${dbPath}; pass the one the server uses with --db (or STATUSBOT_DB), or make a new one with statusbot migrate --db ${dbPath}`,
    );
  }
}

/** How a command may use a database path. */
export interface DatabaseUse {
  /** The command makes the SQLite file when it is missing (serve, migrate), and says so through this, once, before. */
  created?: (line: string) => void;
}

const writable = (path: string): boolean => {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/** The file's status; undefined when there is none (also when a file stands where a folder of the path should be). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as { code?: string }).code ?? '')) return undefined;
    throw error;
  }
}

/**
 * A SQLite path that cannot hold the database is named before SQLite says
 * "unable to open database file" about it: a folder, a file where a folder must
 * be, a place this user cannot write (SQLite writes its -wal file beside the database).
 */
export function checkDatabasePath(dbPath: string): void {
  if (!isSqliteFile(dbPath)) return;
  const stat = statOf(dbPath);
  if (stat?.isDirectory()) {
    throw new CommandError(`the database ${dbPath} is a folder; name a file in it, e.g. --db ${join(dbPath, 'statusbot.db')} (or STATUSBOT_DB)`);
  }
  if (stat) {
    if (!writable(dbPath)) throw new CommandError(`cannot write the database ${dbPath}: this user may not; ${WAY_OUT}, or change its permissions`);
    if (!writable(dirname(resolve(dbPath)))) {
      throw new CommandError(`cannot use the database ${dbPath}: this user may not write its folder ${dirname(dbPath)}; ${WAY_OUT}`);
    }
    return;
  }
  let folder = dirname(resolve(dbPath));
  while (!existsSync(folder)) folder = dirname(folder);
  if (!statSync(folder).isDirectory()) throw new CommandError(`cannot create the database ${dbPath}: ${folder} is a file, not a folder; ${WAY_OUT}`);
  if (!writable(folder)) throw new CommandError(`cannot create the database ${dbPath}: this user may not write ${folder}; ${WAY_OUT}`);
}

/** An error that opening the SQLite file at `dbPath` raised, in one line that names the file; null for any other. */
export function databaseProblem(error: unknown, dbPath: string): CommandError | null {
  if (!isSqliteFile(dbPath)) return null;
  const e = error as { code?: unknown; syscall?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (code === 'SQLITE_NOTADB') return new CommandError(`${dbPath} is not a database file; pass the statusbot database with --db (or STATUSBOT_DB)`);
  if (/^SQLITE_(CANTOPEN|READONLY|PERM|IOERR)/.test(code) || (e?.syscall === 'mkdir' && /^E[A-Z]+$/.test(code))) {
    return new CommandError(`cannot open the database ${dbPath} (${message}); ${WAY_OUT}`);
  }
  return null;
}

/**
 * Runs `fn`, which opens the database at `dbPath`, once the path is known to be usable; its opening errors name the path.
 * A missing SQLite file is refused unless `use.created` allows making it.
 */
export async function onDatabase<T>(dbPath: string, fn: () => Promise<T>, use: DatabaseUse = {}): Promise<T> {
  const making = isSqliteFile(dbPath) && !existsSync(dbPath);
  if (making && !use.created) mustExist(dbPath);
  checkDatabasePath(dbPath);
  if (making) use.created?.(`created a new database at ${dbPath}`);
  try {
    return await fn();
  } catch (error) {
    throw databaseProblem(error, dbPath) ?? error;
  }
}

/** A migrated database for one command, closed afterwards. */
export function withContext<T>(dbPath: string, fn: (ctx: DomainContext) => Promise<T>, publicUrl = 'http://localhost:8080'): Promise<T> {
  return onDatabase(dbPath, async () => {
    const db = openDatabase({ path: dbPath });
    try {
      await migrateToLatest(db);
      // What a command changes, the operator at the command line changed.
      return await fn(createDomainContext({ db, clock: systemClock, publicUrl }).actingAs({ actor: 'cli', requestId: null }));
    } finally {
      await db.destroy();
    }
  });
}
