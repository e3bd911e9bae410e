import type { ControlledTransaction, Kysely } from 'kysely';
import { sql } from 'kysely';
import { LISTENER_NAME_PREFIX } from './change-feed.js';
import { changeFeedOf, engineOf, poolSizeOf } from './database.js';
import type { Db } from './database.js';
import type { Database } from './schema.js';

/** A unit of writing: it uses only the transaction it is given. */
export type WriteUnit<T> = (trx: Kysely<Database>) => Promise<T>;

export interface Writer {
  /** Runs the unit in a transaction; resolves once its changes are committed, rejects with the unit's error after undoing them. */
  run<T>(unit: WriteUnit<T>): Promise<T>;
}

interface Pending {
  unit: WriteUnit<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  attempts: number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** PostgreSQL chose this transaction to undo (a deadlock, a serialization failure): running it again may succeed. */
const isRetryable = (error: unknown): boolean => ['40P01', '40001'].includes((error as { code?: unknown } | null)?.code as string);
const MAX_ATTEMPTS = 3;

/**
 * Group commit: units that arrive while a transaction is running wait for it,
 * then all run in the next transaction, each inside its own savepoint, and
 * share one commit, so one disk sync makes many of them durable. A unit that
 * fails is rolled back to its savepoint without touching the others. No unit
 * is answered before the commit that holds it is on disk.
 *
 * SQLite has one writer at a time, so batches run one after the other.
 * PostgreSQL runs several transactions at once (half the pool), each taking
 * the units queued when it starts; one that PostgreSQL undoes to break a
 * deadlock runs again. Before answering, a PostgreSQL batch waits until every
 * replica has heard of its commit (see ChangeFeed), so no replica's cache
 * answers a read made after the answer with what was there before.
 */
export function createWriter(db: Db, options: { maxBatch?: number; afterCommit?: () => void } = {}): Writer {
  const maxBatch = options.maxBatch ?? 64;
  const postgres = engineOf(db) === 'postgres';
  const feed = changeFeedOf(db);
  const slots = postgres ? Math.max(1, Math.floor(poolSizeOf(db) / 2)) : 1;
  const queue: Pending[] = [];
  let running = 0;

  async function runUnits(trx: ControlledTransaction<Database>, batch: Pending[]): Promise<Outcome[]> {
    if (batch.length === 1) {
      // Alone in its transaction: a failure undoes the transaction, no savepoint needed.
      try {
        return [{ ok: true, value: await batch[0]!.unit(trx) }];
      } catch (error) {
        return [{ ok: false, error }];
      }
    }
    const outcomes: Outcome[] = [];
    for (const [i, p] of batch.entries()) {
      const name = `unit${i}`;
      const sp = await trx.savepoint(name).execute();
      try {
        const value = await p.unit(sp);
        await sp.releaseSavepoint(name).execute();
        outcomes.push({ ok: true, value });
      } catch (error) {
        await sp.rollbackToSavepoint(name).execute();
        await sp.releaseSavepoint(name).execute();
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }

  async function runBatch(batch: Pending[]): Promise<void> {
    let trx;
    try {
      trx = await db.startTransaction().execute();
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    let xid: string | null = null;
    let seen: Promise<void> = Promise.resolve();
    let outcomes: Outcome[];
    try {
      if (feed) {
        // Which replicas listen now: each must hear of this commit before any unit is answered.
        const { rows } = await sql<{ xid: string; listeners: string[] }>`
          select txid_current()::text as xid, array(select application_name from pg_stat_activity
            where datname = current_database() and application_name like ${`${LISTENER_NAME_PREFIX}%`}) as listeners`.execute(trx);
        xid = rows[0]!.xid;
        seen = feed.expectSeen(xid, rows[0]!.listeners);
      }
      outcomes = await runUnits(trx, batch);
      if (batch.length === 1 && !outcomes[0]!.ok) {
        await trx.rollback().execute();
        if (xid) feed?.forget(xid);
      } else {
        await trx.commit().execute();
        if (xid) feed?.committed(xid);
        options.afterCommit?.();
        await seen;
      }
    } catch (error) {
      await trx.rollback().execute().catch(() => undefined);
      if (xid) feed?.forget(xid);
      outcomes = batch.map(() => ({ ok: false, error }));
    }
    outcomes.forEach((o, i) => {
      const p = batch[i]!;
      if (o.ok) p.resolve(o.value);
      else if (isRetryable(o.error) && ++p.attempts < MAX_ATTEMPTS) queue.unshift(p);
      else p.reject(o.error);
    });
  }

  async function drain(): Promise<void> {
    running++;
    try {
      while (queue.length > 0) {
        // SQLite calls block the event loop (a commit waits for the disk): let the
        // requests that arrived meanwhile queue their units, so they share this batch.
        if (!postgres) await new Promise<void>((resolve) => setImmediate(resolve));
        await runBatch(queue.splice(0, maxBatch));
      }
    } finally {
      running--;
    }
  }

  return {
    run<T>(unit: WriteUnit<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ unit, resolve: resolve as (v: unknown) => void, reject, attempts: 0 });
        if (running < slots) void drain();
      });
    },
  };
}
