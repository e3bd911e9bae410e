import type { Kysely } from 'kysely';
import { CHANGE_COUNTER, engineOf } from './database.js';
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
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit: units that arrive while a transaction is running wait for it,
 * then all run in the next transaction, each inside its own savepoint, and
 * share one commit, so one disk sync makes many of them durable. A unit that
 * fails is rolled back to its savepoint without touching the others. No unit
 * is answered before the commit that holds it is on disk.
 */
export function createWriter(db: Db, options: { maxBatch?: number; afterCommit?: () => void } = {}): Writer {
  const maxBatch = options.maxBatch ?? 64;
  const postgres = engineOf(db) === 'postgres';
  const queue: Pending[] = [];
  let draining = false;

  async function runBatch(batch: Pending[]): Promise<void> {
    let trx;
    try {
      trx = await db.startTransaction().execute();
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    const outcomes: Outcome[] = [];
    try {
      // PostgreSQL: every write moves the change counter (a trigger on each table). Taking its row first makes
      // write transactions of all replicas take their locks in one order, so that they queue instead of deadlocking.
      if (postgres) await trx.selectFrom('meta').select('value').where('key', '=', CHANGE_COUNTER).forUpdate().execute();
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
      await trx.commit().execute();
      options.afterCommit?.();
    } catch (error) {
      await trx.rollback().execute().catch(() => undefined);
      for (const p of batch) p.reject(error);
      return;
    }
    outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.value) : batch[i]!.reject(o.error)));
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length > 0) {
        // SQLite calls block the event loop (a commit waits for the disk): let the
        // requests that arrived meanwhile queue their units, so they share this batch.
        await new Promise<void>((resolve) => setImmediate(resolve));
        await runBatch(queue.splice(0, maxBatch));
      }
    } finally {
      draining = false;
    }
  }

  return {
    run<T>(unit: WriteUnit<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ unit, resolve: resolve as (v: unknown) => void, reject });
        if (!draining) void drain();
      });
    },
  };
}
