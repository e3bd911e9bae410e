import type { Insertable, Kysely } from 'kysely';
import { openedOf } from './database.js';
import type { Db } from './database.js';
import type { Outcome, WriteUnit, WriterEngine } from './engine.js';
import { engineOf } from './engines.js';
import type { Database } from './schema.js';
import { unitStateOf } from './unit-state.js';

export type { WriteUnit };

/** How a unit's commit must reach the disk. */
export interface WriteOptions {
  /**
   * False for bookkeeping whose loss at a power cut only repeats work (an
   * outbox row marked sent is delivered again, with the same key): its commit
   * does not wait for the disk, which a later durable commit syncs along.
   * Default true: answered only once on disk.
   */
  durable?: boolean;
}

export interface Writer {
  /** Runs the unit in a transaction; resolves once its changes are committed, rejects with the unit's error after undoing them. */
  run<T>(unit: WriteUnit<T>, options?: WriteOptions): Promise<T>;
}

interface Pending {
  unit: WriteUnit<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  attempts: number;
  /** Runs in a transaction of its own (after a transaction it shared failed). */
  alone: boolean;
  durable: boolean;
}

export interface WriterOptions {
  maxBatch?: number;
  afterCommit?: () => void;
  /** Called with the number of units of each transaction. */
  onBatch?: (size: number) => void;
}

/**
 * Said by a unit that changes nothing another process caches: it changed
 * nothing at all, or only bookkeeping no read shows. Its commit then waits
 * for no other process to hear of it. The writer also finds it by itself,
 * from the tables the unit's statements write (see write-effects.ts).
 */
export function changesNothingCached(trx: Kysely<Database>): void {
  unitStateOf(trx)?.quiet();
}

/**
 * A row that nothing reads back in its own transaction (an audit row) is
 * deferred, where the engine defers such rows, and inserted with those of
 * the transaction's other units, in one statement per table just before
 * the commit: in the same transaction still, and gone with the unit if the
 * unit fails. A statement per row cost as much again as the row. False where
 * the unit's engine does not (the row rides in the unit's own statements):
 * the caller inserts it.
 */
export function deferInsert<T extends keyof Database & string>(trx: Kysely<Database>, table: T, row: Insertable<Database[T]>): boolean {
  const deferred = unitStateOf(trx)?.deferred;
  if (!deferred) return false;
  let rows = deferred.get(table);
  if (!rows) {
    rows = [];
    deferred.set(table, rows);
  }
  rows.push(row as Record<string, unknown>);
  return true;
}

/** The engine chose this transaction to undo (a deadlock, a serialization failure): running it again may succeed. */
const isRetryable = (error: unknown): boolean => ['40P01', '40001'].includes((error as { code?: unknown } | null)?.code as string);
const MAX_ATTEMPTS = 3;

/** Runs the batch in one transaction: its units' outcomes (null: undone, each unit to run again alone), and what to wait for before answering. */
async function transact(
  engine: WriterEngine,
  batch: readonly Pending[],
  options: WriterOptions,
): Promise<{ outcomes: Outcome[] | null; seen: Promise<void> | null }> {
  let seen: Promise<void> | null = null;
  // Synced to disk when any unit must be: a synced commit also makes the unsynced ones before it durable.
  const outcomes = await engine.inTransaction(
    batch.some((p) => p.durable),
    async (tx) => {
      options.onBatch?.(batch.length);
      try {
        const done = batch.length === 1 ? [await tx.runUnit(batch[0]!.unit)] : await tx.runUnits(batch.map((p) => p.unit));
        if (done === null || (batch.length === 1 && !done[0]!.ok)) {
          await tx.rollback();
          return done;
        }
        seen = (await tx.commit(done))?.seen ?? null;
        options.afterCommit?.();
        return done;
      } catch (error) {
        await tx.rollback().catch(() => undefined);
        return batch.map((): Outcome => ({ ok: false, error }));
      }
    },
  );
  return { outcomes, seen };
}

/**
 * Answers the units of a batch, once `seen` (when not null), or queues them
 * again: all of them alone when the batch was undone (null), those to run
 * later, and those the engine undid that may be tried again.
 */
function settle(queue: Pending[], batch: readonly Pending[], outcomes: Outcome[] | null, seen: Promise<void> | null): void {
  if (outcomes === null) {
    // A unit failed in a shared transaction, which is undone: each runs again alone, where a failure is its own.
    queue.unshift(...batch.map((p) => ({ ...p, alone: true })));
    return;
  }
  const later: Pending[] = [];
  const answered: { p: Pending; o: Outcome }[] = [];
  outcomes.forEach((o, i) => {
    const p = batch[i]!;
    if (o.ok === 'later') later.push(p);
    else if (!o.ok && isRetryable(o.error) && ++p.attempts < MAX_ATTEMPTS) later.push(p);
    else answered.push({ p, o });
  });
  queue.unshift(...later);
  const answer = () => {
    for (const { p, o } of answered) {
      if (o.ok === true) p.resolve(o.value);
      else if (o.ok === false) p.reject(o.error);
    }
  };
  // Answered once every process that caches reads has heard of the commit; meanwhile the slot goes on with the next
  // transaction, so that a replica slow to say so delays these answers, not every write after them.
  if (seen === null) answer();
  else void seen.then(answer);
}

/** The units of the next transaction: the first alone if it must be, else those queued up to one that must be alone. */
function nextBatch(queue: Pending[], maxBatch: number): Pending[] {
  if (queue[0]!.alone) return queue.splice(0, 1);
  let n = 1;
  while (n < queue.length && n < maxBatch && !queue[n]!.alone) n++;
  return queue.splice(0, n);
}

/**
 * Group commit: units that arrive while a transaction is running wait for it,
 * then all run in the next transaction and share one commit, so one disk sync
 * makes many of them durable. No unit is answered before the commit that
 * holds it is on disk. How many transactions run at once, how a unit that
 * fails is undone without the others, and what a commit waits for before
 * its units are answered is each engine's (transactions.ts of its folder in
 * dialects/).
 */
export function createWriter(db: Db, options: WriterOptions = {}): Writer {
  const maxBatch = options.maxBatch ?? 64;
  const engine = engineOf(db).writer(db, openedOf(db));
  const queue: Pending[] = [];
  let running = 0;

  async function runBatch(batch: Pending[]): Promise<void> {
    let result: Awaited<ReturnType<typeof transact>>;
    try {
      result = await transact(engine, batch, options);
    } catch (error) {
      // No transaction could be begun.
      for (const p of batch) p.reject(error);
      return;
    }
    settle(queue, batch, result.outcomes, result.seen);
  }

  async function drain(): Promise<void> {
    running++;
    try {
      while (queue.length > 0) {
        // Let the requests that arrived meanwhile queue their units, so they share this batch (see waitsForMore).
        if (engine.waitsForMore(running)) await new Promise<void>((resolve) => setImmediate(resolve));
        if (queue.length > 0) await runBatch(nextBatch(queue, maxBatch));
      }
    } finally {
      running--;
    }
  }

  return {
    run<T>(unit: WriteUnit<T>, options: WriteOptions = {}): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ unit, resolve: resolve as (v: unknown) => void, reject, attempts: 0, alone: false, durable: options.durable ?? true });
        if (running < engine.slots) void drain();
      });
    },
  };
}
