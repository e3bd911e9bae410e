import { Migrator, sql } from 'kysely';
import type { MigrationResultSet } from 'kysely';
import { migrations } from '../../migrations/index.js';
import { assertDatabaseAnswers, DatabaseUnavailableError } from './database.js';
import type { Db } from './database.js';
import { engineOf } from './engines.js';

export interface MigrationReport {
  applied: string[];
}

export interface MigrateOptions {
  /**
   * The last migration to apply (the schema of a release that ended there, to
   * upgrade from in a test), on a database not migrated past it; unset, every one.
   */
  upTo?: string;
}

/** Applies every pending migration (or those up to `upTo`), in name order; forward-only. */
export async function migrateToLatest(db: Db, options: MigrateOptions = {}): Promise<MigrationReport> {
  const { upTo } = options;
  if (upTo !== undefined && !Object.hasOwn(migrations, upTo)) throw new Error(`there is no migration ${upTo}`);
  await assertDatabaseAnswers(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const result: MigrationResultSet = upTo === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(upTo);
  if (result.error) {
    const unknown = await migrationsUnknownHere(db);
    if (unknown.length > 0) {
      const which = unknown.length === 1 ? `migration ${unknown[0]} is` : `migrations ${unknown.join(', ')} are`;
      throw new DatabaseUnavailableError(
        `this database was migrated by a newer statusbot (${which} unknown to this version); run that version, or restore the backup taken before the upgrade`,
      );
    }
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${String(result.error)}`, { cause: result.error });
  }
  const applied = (result.results ?? []).map((r) => r.migrationName);
  // Applied at every start, for every table the migrations made.
  await engineOf(db).noteChanges(db);
  return { applied };
}

/** What stands between the database and this version's schema: migrations not applied yet, and applied ones this version lacks. */
export interface MigrationState {
  pending: string[];
  unknown: string[];
}

/** Compares the migrations the database records with this version's (an unmigrated database has every one pending). */
export async function migrationState(db: Db): Promise<MigrationState> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const applied = new Set(rows.map((r) => r.name));
  return {
    pending: Object.keys(migrations)
      .filter((name) => !applied.has(name))
      .sort(),
    unknown: [...applied].filter((name) => !Object.hasOwn(migrations, name)).sort(),
  };
}

/** Migrations the database records as applied that this version lacks: a later version migrated it (and nothing here runs backwards). */
async function migrationsUnknownHere(db: Db): Promise<string[]> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    return rows.map((r) => r.name).filter((name) => !Object.hasOwn(migrations, name));
  } catch {
    return [];
  }
}
