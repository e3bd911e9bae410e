import { sql } from 'kysely';
import type { ControlledTransaction, Kysely } from 'kysely';
import type { Outcome, WriteUnit, WriterEngine } from '../../engine.js';
import type { Database } from '../../schema.js';
import { runWith } from '../../unit-state.js';
import type { Deferred } from '../../unit-state.js';

/*
 * SQLite: the writer's transactions. One writer at a time holds the file, so
 * batches run one after the other, each unit inside its own savepoint: a
 * unit that fails is rolled back to it without touching the others. Rows
 * that nothing reads back in their own transaction (audit rows) are left to
 * the commit, and inserted in one statement per table just before it.
 */

/** Set between transactions only; WAL mode keeps every commit whole either way. */
const SYNCED = { true: sql.raw('pragma synchronous = FULL'), false: sql.raw('pragma synchronous = NORMAL') };

/** Variables per insert of deferred rows: well under SQLite's limit of variables in one statement. */
const AT_COMMIT_VARIABLES = 4_000;

/** Inserts the deferred rows, a few statements per table. */
async function insertDeferred(trx: Kysely<Database>, deferred: Deferred): Promise<void> {
  for (const [table, rows] of deferred) {
    const chunk = Math.max(1, Math.floor(AT_COMMIT_VARIABLES / Object.keys(rows[0] ?? {}).length));
    for (let i = 0; i < rows.length; i += chunk) {
      await trx
        .insertInto(table as keyof Database)
        .values(rows.slice(i, i + chunk) as never)
        .execute();
    }
  }
}

// Nothing here is told to other processes: each sees the file's commits by itself.
const quiet = (): void => undefined;

/** Runs `unit` on `handle`, adding the rows it leaves to the commit to `deferred` once it succeeds. */
async function deferringRows<T>(handle: Kysely<Database>, deferred: Deferred, unit: WriteUnit<T>): Promise<T> {
  const rows: Deferred = new Map();
  const value = await runWith(handle, { turn: null, deferred: rows, quiet }, unit);
  for (const [table, list] of rows) {
    const all = deferred.get(table);
    if (all) all.push(...list);
    else deferred.set(table, list);
  }
  return value;
}

async function runInSavepoints(trx: ControlledTransaction<Database>, units: readonly WriteUnit<unknown>[], deferred: Deferred): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const [i, unit] of units.entries()) {
    const name = `unit${i}`;
    const sp = await trx.savepoint(name).execute();
    try {
      const value = await deferringRows(sp, deferred, unit);
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

export function sqliteWriter(db: Kysely<Database>): WriterEngine {
  /** Whether the connection's commits wait for the disk now (it is opened so). */
  let synced = true;
  return {
    slots: 1,
    // SQLite calls block the event loop (a commit waits for the disk): let the requests that arrived meanwhile queue
    // their units, so they share the next batch.
    waitsForMore: () => true,
    async inTransaction(durable, fn) {
      if (synced !== durable) {
        await SYNCED[`${durable}`].execute(db);
        synced = durable;
      }
      const trx = await db.startTransaction().execute();
      const deferred: Deferred = new Map();
      return fn({
        async runUnit(unit) {
          try {
            return { ok: true, value: await deferringRows(trx, deferred, unit) };
          } catch (error) {
            return { ok: false, error };
          }
        },
        runUnits: (units) => runInSavepoints(trx, units, deferred),
        async commit() {
          await insertDeferred(trx, deferred);
          await trx.commit().execute();
          return null;
        },
        rollback: () => trx.rollback().execute(),
      });
    },
  };
}
