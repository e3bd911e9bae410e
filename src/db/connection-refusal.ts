import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * SQLSTATEs with which a running PostgreSQL server refuses a new connection
 * for now: 53300 too_many_connections (max_connections, or a role's or a
 * database's CONNECTION LIMIT, taken), 57P03 cannot_connect_now (starting up,
 * shutting down, in recovery). Such a server is there and will admit the
 * connection later: not a fault of the request or of the configuration.
 */
const REFUSED_NOW = new Set(['53300', '57P03']);

/** Whether the error (or one it was caused by) is PostgreSQL refusing a connection for now. */
export function refusesConnectionsNow(error: unknown): boolean {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && REFUSED_NOW.has(code)) return true;
  }
  return false;
}

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
