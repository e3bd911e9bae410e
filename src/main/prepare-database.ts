import { waitWhileConnectionsRefused } from '../db/connection-refusal.js';
import type { Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Logger } from '../infrastructure/logger.js';

/** The database made ready to serve: admitting connections, and migrated to this version's schema. */
export async function prepareDatabase(db: Db, logger: Logger): Promise<void> {
  // A replica that starts while PostgreSQL refuses connections (all taken, or starting up) waits for one, saying why.
  await waitWhileConnectionsRefused(db, {
    onRefused: (reason, retryInMs) => logger.warn(`the database refuses connections for now (${reason}); trying again in ${retryInMs / 1000} s`, { retryInMs }),
  });
  const migrated = (await migrateToLatest(db)).applied;
  if (migrated.length > 0) logger.info(`applied migrations ${migrated.join(', ')}`, { migrations: migrated });
}
