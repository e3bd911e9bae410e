import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { CommandInput } from './command.js';
import { onDatabase } from './database-access.js';

/** `statusbot migrate`, as commands.ts describes it. */
export const runMigrate = (input: CommandInput): Promise<number> =>
  onDatabase(
    input.dbPath,
    async () => {
      const db = openDatabase({ path: input.dbPath });
      try {
        const { applied } = await migrateToLatest(db);
        input.out(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date');
      } finally {
        await db.destroy();
      }
      return 0;
    },
    { created: input.out },
  );
