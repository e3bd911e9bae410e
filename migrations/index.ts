import type { Migration } from 'kysely';
import * as m0001 from './0001_init.js';

/** Every migration, by name; the Migrator applies them in name order. Add new ones here. */
export const migrations: Record<string, Migration> = {
  '0001_init': m0001,
};
