import { existsSync } from 'node:fs';
import { CopyRefusedError, copyDatabase } from '../db/copy.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { sqliteInUse } from '../db/sqlite-files.js';
import { CommandError, UsageError } from './cli-errors.js';
import type { CommandInput } from './command.js';
import { onDatabase } from './database-access.js';
import { terminalProgress } from './progress.js';

/** `statusbot db copy`, as commands.ts describes it. */
export async function runDbCopy(input: CommandInput): Promise<number> {
  const fromOption = input.string('from');
  const toOption = input.string('to');
  const fromPath = fromOption && input.path(fromOption);
  const toPath = toOption && input.path(toOption);
  if (!fromPath || !toPath) throw new UsageError('db copy needs --from (the SQLite file) and --to (the postgres:// URL of an empty database)');
  if (!existsSync(fromPath)) throw new UsageError(`db copy: there is no database file ${fromPath}`);
  const progress = terminalProgress({ stream: input.stderr, env: input.env });
  const quietSource = `stop the server that uses ${fromPath}, or copy from a backup (statusbot db backup FILE --db ${fromPath}, then db copy --from FILE)`;
  input.out(`db copy needs a source no server writes to and an empty target; the target gets everything or nothing`);
  return onDatabase(fromPath, async () => {
    if (sqliteInUse(fromPath)) throw new CommandError(`${fromPath} is in use (a running statusbot, or another command); ${quietSource}`);
    const from = openDatabase({ path: fromPath });
    const to = openDatabase({ path: toPath });
    try {
      await migrateToLatest(from);
      await migrateToLatest(to);
      const report = await copyDatabase(from, to, (line) => progress.show(`copying ${line}`)).catch((error: unknown) => {
        if (error instanceof CopyRefusedError && error.message.startsWith('the target is not empty')) throw error;
        const cause = error instanceof Error ? error.message : String(error);
        throw new CommandError(`the copy failed and the target is left empty: ${cause}; ${quietSource}, then run db copy again`);
      });
      progress.done();
      let same = true;
      for (const { table, source, target } of report.tables) {
        same &&= source === target;
        input.out(`${table.padEnd(28)} ${String(source).padStart(9)} ${String(target).padStart(9)}${source === target ? '' : '  DIFFERENT'}`);
      }
      input.out(same ? 'copied: every table holds the same number of rows on both sides' : 'the counts differ: see the tables marked DIFFERENT');
      return same ? 0 : 1;
    } finally {
      progress.done();
      await from.destroy();
      await to.destroy();
    }
  });
}
