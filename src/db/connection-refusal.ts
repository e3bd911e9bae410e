import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { refusesConnectionsNow } from '../infrastructure/database-unavailable.js';
import type { Database } from './schema.js';

export interface WaitOptions {
  /** Told of each refusal, with why and how long until the next try. */
  onRefused: (reason: string, retryInMs: number) => void;
  /** The first wait, doubled after each refusal up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Returns once the database admits a connection, waiting as long as it
 * refuses them for now (see refusesConnectionsNow): a replica that starts
 * while the server's connections are all taken, or while it starts up, then
 * starts with it rather than exiting. Any other failure returns at once, for
 * the start to report as it does (a wrong address or password is not waited out).
 */
export async function waitWhileConnectionsRefused(db: Kysely<Database>, options: WaitOptions): Promise<void> {
  const max = options.maxDelayMs ?? 30_000;
  for (let wait = options.firstDelayMs ?? 1_000; ; wait = Math.min(wait * 2, max)) {
    try {
      await sql`select 1`.execute(db);
      return;
    } catch (error) {
      if (!refusesConnectionsNow(error)) return;
      options.onRefused((error as Error).message || String(error), wait);
      await delay(wait);
    }
  }
}
