import { databaseAnswers } from '../db/database.js';
import type { Db } from '../db/database.js';
import { migrationState } from '../db/migrate.js';
import { plural } from '../domain/plural.js';

/**
 * Why this process cannot serve requests now (GET /readyz), or null when it can: it has
 * started, its database answers, and the database's schema is this version's. A load
 * balancer or Kubernetes sends it no traffic meanwhile; unlike /healthz, this is no
 * reason to restart it.
 */
export async function notReadyBecause(db: Db, started: boolean): Promise<string | null> {
  if (!started) return 'starting';
  if (!(await databaseAnswers(db))) return 'the database cannot be reached';
  let state: Awaited<ReturnType<typeof migrationState>>;
  try {
    state = await migrationState(db);
  } catch {
    return 'the database cannot be reached';
  }
  if (state.unknown.length > 0) return `the database was migrated by a newer statusbot (${state.unknown.join(', ')})`;
  if (state.pending.length > 0) return `${plural(state.pending.length, 'migration')} not applied yet: ${state.pending.join(', ')}`;
  return null;
}
