import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Command } from './command.js';
import { onDatabase } from './database-access.js';

export const migrateCommand: Command = {
  name: 'migrate',
  synopsis: '[--db FILE|URL]',
  summary: 'apply pending database migrations',
  details: 'Migrations are forward-only; serve and every other command also apply them. A missing SQLite file is created.',
  options: ['db'],
  run: (input) =>
    onDatabase(input.dbPath, async () => {
      const db = openDatabase({ path: input.dbPath });
      try {
        const { applied } = await migrateToLatest(db);
        input.out(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date');
      } finally {
        await db.destroy();
      }
      return 0;
    }),
};
