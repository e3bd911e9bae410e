import { existsSync } from 'node:fs';
import { copyDatabase } from '../db/copy.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { UsageError } from './cli-errors.js';
import type { Command } from './command.js';
import { onDatabase } from './database-access.js';
import { terminalProgress } from './progress.js';

export const dbCopyCommand: Command = {
  name: 'db copy',
  synopsis: '--from FILE --to URL',
  summary: 'copy a SQLite database into a new, empty PostgreSQL one',
  details: 'In one transaction on the target; ends with the row counts of every table on both sides.',
  options: ['from', 'to'],
  async run(input) {
    const fromOption = input.string('from');
    const toOption = input.string('to');
    const fromPath = fromOption && input.path(fromOption);
    const toPath = toOption && input.path(toOption);
    if (!fromPath || !toPath) throw new UsageError('db copy needs --from (the SQLite file) and --to (the postgres:// URL of an empty database)');
    if (!existsSync(fromPath)) throw new UsageError(`db copy: there is no database file ${fromPath}`);
    const progress = terminalProgress({ stream: input.stderr, env: input.env });
    return onDatabase(fromPath, async () => {
      const from = openDatabase({ path: fromPath });
      const to = openDatabase({ path: toPath });
      try {
        await migrateToLatest(from);
        await migrateToLatest(to);
        const report = await copyDatabase(from, to, (line) => progress.show(`copying ${line}`));
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
  },
};
