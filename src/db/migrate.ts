import { Migrator } from 'kysely';
import type { MigrationResultSet } from 'kysely';
import { migrations } from '../../migrations/index.js';
import { assertDatabaseAnswers, noteChangesOnPostgres, engineOf } from './database.js';
import type { Db } from './database.js';

export interface MigrationReport {
  applied: string[];
}

/** Applies every pending migration, in name order; forward-only. */
export async function migrateToLatest(db: Db): Promise<MigrationReport> {
  await assertDatabaseAnswers(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${String(result.error)}`, { cause: result.error });
  }
  const applied = (result.results ?? []).map((r) => r.migrationName);
  if (engineOf(db) === 'postgres') await noteChangesOnPostgres(db);
  return { applied };
}
