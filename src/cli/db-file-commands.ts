import { existsSync } from 'node:fs';
import { isPostgresUrl } from '../db/database-url.js';
import { backupSqlite, describeStatusbotFile, restoreSqlite, sqliteInUse } from '../db/sqlite-files.js';
import { CommandError } from './cli-errors.js';
import type { CommandInput } from './command.js';
import { checkDatabasePath, databaseProblem, mustExist } from './database-access.js';

/** The pg_dump / pg_restore options that name a PostgreSQL database, from its URL without the password. */
function pgTarget(url: string): string {
  try {
    const u = new URL(url);
    const parts = [`--host=${u.hostname || 'localhost'}`, `--port=${u.port || '5432'}`];
    if (u.username) parts.push(`--username=${decodeURIComponent(u.username)}`);
    parts.push(`--dbname=${decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres'}`);
    return parts.join(' ');
  } catch {
    return '--dbname=NAME';
  }
}

const shell = (s: string) => (/^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** `statusbot db backup`, as commands.ts describes it. */
export async function runDbBackup(input: CommandInput): Promise<number> {
  const file = input.path(input.operands[0]!);
  if (isPostgresUrl(input.dbPath)) {
    throw new CommandError(
      `db backup copies SQLite files; back up PostgreSQL with pg_dump: pg_dump --format=custom --file=${shell(file)} ${pgTarget(input.dbPath)}`,
    );
  }
  mustExist(input.dbPath);
  checkDatabasePath(input.dbPath);
  if (existsSync(file) && !input.flag('force')) throw new CommandError(`${file} exists; name a new file, or pass --force to replace it`);
  checkDatabasePath(file);
  try {
    await backupSqlite(input.dbPath, file);
  } catch (error) {
    const e = error as { syscall?: unknown; message?: unknown };
    if (typeof e.syscall === 'string') throw new CommandError(`cannot write the backup ${file} (${String(e.message)}); name another FILE`);
    throw databaseProblem(error, input.dbPath) ?? error;
  }
  input.out(`backed up ${input.dbPath} to ${file}`);
  return 0;
}

/** `statusbot db restore`, as commands.ts describes it. */
export async function runDbRestore(input: CommandInput): Promise<number> {
  const file = input.path(input.operands[0]!);
  const target = input.dbPath;
  if (isPostgresUrl(target)) {
    throw new CommandError(
      // pg_restore --clean alone leaves what a later version added, and ends in a mixed database: the schema is emptied first.
      `db restore puts SQLite files in place; restore PostgreSQL with pg_restore into an empty schema, the server stopped: psql -v ON_ERROR_STOP=1 ${pgTarget(target)} -c 'set client_min_messages = warning; drop schema public cascade; create schema public' && pg_restore --no-owner --exit-on-error --single-transaction ${pgTarget(target)} ${shell(file)}`,
    );
  }
  if (!existsSync(file)) throw new CommandError(`there is no backup at ${file}`);
  checkDatabasePath(target);
  const { migration } = describeStatusbotFile(file);
  try {
    if (sqliteInUse(target)) {
      throw new CommandError(`${target} is in use (a running statusbot, or another command): stop the server first, then restore`);
    }
    const { previous } = await restoreSqlite(file, target, new Date());
    input.out(`restored ${file} (migration ${migration}) to ${target}${previous ? `; the database it replaced is kept as ${previous}` : ''}`);
  } catch (error) {
    throw databaseProblem(error, target) ?? error;
  }
  return 0;
}
