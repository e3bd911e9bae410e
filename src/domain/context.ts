import type { Db } from '../db/database.js';
import type { Clock } from './clock.js';

/** What every use case runs with: the database, the clock, and where this server is reachable. */
export interface DomainContext {
  readonly db: Db;
  readonly clock: Clock;
  /** Base of `tracker_url` values, without a trailing slash. */
  readonly publicUrl: string;
  /** The last demo period brought up to date by this process; see demo/demo-services.ts. */
  readonly demo: { syncedPeriod: number };
}

export interface DomainContextOptions {
  db: Db;
  clock: Clock;
  publicUrl: string;
}

export function createDomainContext(options: DomainContextOptions): DomainContext {
  return {
    db: options.db,
    clock: options.clock,
    publicUrl: options.publicUrl.replace(/\/+$/, ''),
    demo: { syncedPeriod: Number.NaN },
  };
}
