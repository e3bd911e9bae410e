import type {
  ControlledTransaction,
  Insertable,
  Kysely,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { sql } from 'kysely';
import { LISTENER_NAME_PREFIX } from './change-feed.js';
import { changeFeedOf, engineOf, poolSizeOf } from './database.js';
import type { Db } from './database.js';
import type { Database } from './schema.js';

/** A unit of writing: it uses only the transaction it is given. */
export type WriteUnit<T> = (trx: Kysely<Database>) => Promise<T>;

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

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown } | { ok: 'later' };

/** What a PostgreSQL transaction must know before it commits: its id, and which replicas listen (see ChangeFeed). */
export interface ChangeNote {
  xid: string;
  listeners: string[];
}

/** A unit's turn in the writer's transaction. */
interface Turn {
  /** Of the whole transaction: the note, null until a statement read it; how many units said they change nothing cached. */
  tx: { note: ChangeNote | null; quiet: number };
  /** Whether the unit may wait for a row lock (see `lockTurn`). */
  mayWait: boolean;
  /** Statements the unit has run so far (counted only where the unit shares its transaction). */
  ran: number;
  /** The unit said it changes nothing that a replica caches (see `changesNothingCached`). */
  quiet?: boolean;
}

/** Rows units left to their transaction's commit, by table (see `deferInsert`). */
type Deferred = Map<string, Record<string, unknown>[]>;

/** What a unit says to the writer of its transaction: its turn (PostgreSQL) and the rows it leaves to the commit (SQLite). */
interface UnitState {
  turn: Turn | null;
  deferred: Deferred | null;
}

/**
 * The unit's state rides on the handle the unit is given (a transaction,
 * a savepoint, or a counting view of the transaction), under this key: what
 * a unit says reaches the writer that gave it the handle, and nothing
 * outlives the transaction.
 */
const UNIT = Symbol('statusbot.writer.unit');
type Handle = Kysely<Database> & { [UNIT]?: UnitState };

const unitStateOf = (trx: Kysely<Database>): UnitState | undefined => (trx as Handle)[UNIT];

/** Runs `unit` on `handle` with `state`, which the handle carries meanwhile. */
async function runWith<T>(handle: Kysely<Database>, state: UnitState, unit: WriteUnit<T>): Promise<T> {
  (handle as Handle)[UNIT] = state;
  try {
    return await unit(handle);
  } finally {
    (handle as Handle)[UNIT] = undefined;
  }
}

/** Counts the statements a unit runs, where the unit shares its transaction. */
const counting = (turn: Turn): KyselyPlugin => ({
  transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => args.node,
  transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => {
    turn.ran++;
    return args.result;
  },
});

/**
 * The columns that read a change note; a unit's statement may carry them (see
 * `lockTurn`), which spares the writer a round trip of its own.
 */
export const changeNoteColumns = [
  sql<string>`txid_current()::text`.as('xid'),
  sql<string[]>`array(select application_name from pg_stat_activity
    where datname = current_database() and application_name like ${`${LISTENER_NAME_PREFIX}%`})`.as('listeners'),
] as const;

/**
 * How a unit takes a row lock in the writer's transaction: `note`, read the
 * change note along (then hand it to `noteChange`); `skip`, do not wait for a
 * row another transaction holds: throw `LockBusy` if it is held. A
 * transaction shared by several units only waits for a lock in its first unit,
 * or once a unit has run other statements: waiting while holding the locks
 * of the units before it could make two transactions wait for each other.
 */
export function lockTurn(trx: Kysely<Database>): { note: boolean; skip: boolean } {
  const turn = unitStateOf(trx)?.turn ?? undefined;
  return { note: turn?.tx.note === null, skip: turn !== undefined && !turn.mayWait && turn.ran === 0 };
}

export function noteChange(trx: Kysely<Database>, note: ChangeNote): void {
  const turn = unitStateOf(trx)?.turn;
  if (turn && turn.tx.note === null) turn.tx.note = { xid: note.xid, listeners: note.listeners };
}

/**
 * Said by a unit that changes nothing a replica caches: it changed nothing at
 * all (a no-op update), or only tables without a change trigger (job leases).
 * No replica hears of such a commit, so a transaction of such units only does
 * not wait for their acknowledgement (it would wait for the timeout).
 */
export function changesNothingCached(trx: Kysely<Database>): void {
  const turn = unitStateOf(trx)?.turn;
  if (!turn || turn.quiet) return;
  turn.quiet = true;
  turn.tx.quiet += 1;
}

/** Variables per insert of deferred rows: well under SQLite's limit of variables in one statement. */
const AT_COMMIT_VARIABLES = 4_000;

/**
 * SQLite: a row that nothing reads back in its own transaction (an audit row)
 * is deferred and inserted, with those of the transaction's other units, in one
 * statement per table just before the commit: in the same transaction still,
 * and gone with the unit's savepoint if the unit fails. A statement per row
 * cost as much again as the row. False where the unit does not run in the
 * writer's SQLite transaction (PostgreSQL, where the row rides in the unit's
 * own statements): the caller inserts it.
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

/** Runs `unit` on `handle`, adding the rows it leaves to the commit to `deferred` once it succeeds. */
async function deferringRows<T>(handle: Kysely<Database>, deferred: Deferred, unit: WriteUnit<T>): Promise<T> {
  const rows: Deferred = new Map();
  const value = await runWith(handle, { turn: null, deferred: rows }, unit);
  for (const [table, list] of rows) {
    const all = deferred.get(table);
    if (all) all.push(...list);
    else deferred.set(table, list);
  }
  return value;
}

/** Thrown by a unit, before it changed anything, whose row lock another transaction holds: the writer runs it again in a later transaction. */
export class LockBusy extends Error {
  constructor() {
    super('the row is locked by another transaction');
    this.name = 'LockBusy';
  }
}

interface Tx {
  trx: Kysely<Database>;
  /** SQLite: the transaction, for the savepoints of its units. */
  savepoints: ControlledTransaction<Database> | null;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * Every statement is prepared once per connection (see database.ts) so as to
 * be run without being planned again; yet PostgreSQL may choose to plan one
 * anew at every run, for the values it is given, which costs more than
 * running the small statements of a change. In the writer's transactions
 * they keep the plan they were prepared with. One round trip: `begin` has no
 * parameters, so it is sent as a simple query, which may hold two statements.
 */
const PREPARED_BEGIN = sql.raw('begin; set local plan_cache_mode = force_generic_plan');
const PREPARED_BEGIN_NOT_SYNCED = sql.raw('begin; set local plan_cache_mode = force_generic_plan; set local synchronous_commit = off');
/** SQLite sets it between transactions only; WAL mode keeps every commit whole either way. */
const SYNCED = { true: sql.raw('pragma synchronous = FULL'), false: sql.raw('pragma synchronous = NORMAL') };
const COMMIT = sql.raw('commit');
const ROLLBACK = sql.raw('rollback');

/** PostgreSQL chose this transaction to undo (a deadlock, a serialization failure): running it again may succeed. */
const isRetryable = (error: unknown): boolean => ['40P01', '40001'].includes((error as { code?: unknown } | null)?.code as string);
const MAX_ATTEMPTS = 3;

/**
 * Group commit: units that arrive while a transaction is running wait for it,
 * then all run in the next transaction and share one commit, so one disk sync
 * makes many of them durable. No unit is answered before the commit that
 * holds it is on disk.
 *
 * SQLite has one writer at a time, so batches run one after the other, each
 * unit inside its own savepoint: a unit that fails is rolled back to it
 * without touching the others.
 *
 * PostgreSQL runs several transactions at once (half the pool), each taking
 * the units queued when it starts, without savepoints (two round trips per
 * unit): when a unit fails, the transaction is undone and each of its units
 * runs again in a transaction of its own. A unit whose service another
 * transaction holds waits for a later transaction (see `lockTurn`). One that
 * PostgreSQL undoes to break a deadlock runs again. Before answering, a
 * PostgreSQL transaction waits until every replica listening before it
 * committed has heard of its commit (see ChangeFeed), so no replica's cache
 * answers a read made after the answer with what was there before.
 */
export function createWriter(
  db: Db,
  options: { maxBatch?: number; afterCommit?: () => void /** Called with the number of units of each transaction. */; onBatch?: (size: number) => void } = {},
): Writer {
  const maxBatch = options.maxBatch ?? 64;
  const postgres = engineOf(db) === 'postgres';
  const feed = changeFeedOf(db);
  const slots = postgres ? Math.max(1, Math.floor(poolSizeOf(db) / 2)) : 1;
  const queue: Pending[] = [];
  let running = 0;
  /** SQLite: whether the connection's commits wait for the disk now (it is opened so). */
  let synced = true;

  async function runAlone(trx: Kysely<Database>, p: Pending, deferred: Deferred | null, turn: Turn): Promise<Outcome> {
    try {
      return { ok: true, value: await (deferred ? deferringRows(trx, deferred, p.unit) : runWith(trx, { turn, deferred: null }, p.unit)) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  async function runInSavepoints(trx: ControlledTransaction<Database>, batch: Pending[], deferred: Deferred): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const [i, p] of batch.entries()) {
      const name = `unit${i}`;
      const sp = await trx.savepoint(name).execute();
      try {
        const value = await deferringRows(sp, deferred, p.unit);
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

  /** The units one after the other; at the first failure the rest is not run (null: the transaction must be undone). */
  async function runShared(trx: Kysely<Database>, batch: Pending[], tx: Turn['tx']): Promise<Outcome[] | null> {
    const outcomes: Outcome[] = [];
    // Once a unit has run statements, the transaction may hold locks: the units after it must not wait for others'.
    let holding = false;
    for (const p of batch) {
      const turn: Turn = { tx, mayWait: !holding, ran: 0 };
      try {
        outcomes.push({ ok: true, value: await runWith(trx.withPlugin(counting(turn)), { turn, deferred: null }, p.unit) });
        holding ||= turn.ran > 0;
      } catch (error) {
        if (!(error instanceof LockBusy) || turn.ran > 1) return null;
        outcomes.push({ ok: 'later' });
      }
    }
    return outcomes;
  }

  /** The note, read now unless a unit read it along. */
  async function noteOf(trx: Kysely<Database>, tx: Turn['tx']): Promise<ChangeNote> {
    if (tx.note) return tx.note;
    const { rows } = await sql<ChangeNote>`select ${sql.join(changeNoteColumns)}`.execute(trx);
    tx.note = rows[0]!;
    return tx.note;
  }

  /**
   * Runs `fn` in a transaction, which `fn` ends. PostgreSQL: begun by hand on a
   * connection of its own, so that the round trip of `begin` also makes the
   * transaction's statements keep the plan they were prepared with (see
   * PREPARED_BEGIN).
   */
  async function inTransaction<T>(durable: boolean, fn: (tx: Tx) => Promise<T>): Promise<T> {
    if (!postgres) {
      if (synced !== durable) {
        await SYNCED[`${durable}`].execute(db);
        synced = durable;
      }
      const trx = await db.startTransaction().execute();
      return fn({ trx, savepoints: trx, commit: () => trx.commit().execute(), rollback: () => trx.rollback().execute() });
    }
    return db.connection().execute(async (conn) => {
      await (durable ? PREPARED_BEGIN : PREPARED_BEGIN_NOT_SYNCED).execute(conn);
      return fn({
        trx: conn,
        savepoints: null,
        commit: async () => void (await COMMIT.execute(conn)),
        rollback: async () => void (await ROLLBACK.execute(conn)),
      });
    });
  }

  async function runBatch(batch: Pending[]): Promise<void> {
    const tx: Turn['tx'] = { note: null, quiet: 0 };
    let xid: string | null = null;
    let seen: Promise<void> = Promise.resolve();
    let outcomes: Outcome[] | null;
    try {
      // Synced to disk when any unit must be: a synced commit also makes the unsynced ones before it durable.
      outcomes = await inTransaction(
        batch.some((p) => p.durable),
        async ({ trx, savepoints, commit, rollback }) => {
          options.onBatch?.(batch.length);
          try {
            let done: Outcome[] | null;
            // SQLite: the rows units leave to the commit (see deferInsert).
            const deferred: Deferred | null = savepoints ? new Map() : null;
            if (batch.length === 1) {
              done = [await runAlone(trx, batch[0]!, deferred, { tx, mayWait: true, ran: 0 })];
            } else {
              done = savepoints ? await runInSavepoints(savepoints, batch, deferred!) : await runShared(trx, batch, tx);
            }
            if (done === null || (batch.length === 1 && !done[0]!.ok)) {
              await rollback();
              return done;
            }
            if (deferred) await insertDeferred(trx, deferred);
            // Which replicas listen, read before the commit: each must hear of it before any unit is answered
            // (unless no unit changed what they cache: then none will hear of it).
            const later = done.filter((o) => o.ok === 'later').length;
            const quiet = tx.quiet + later >= batch.length;
            const note = feed && !quiet ? await noteOf(trx, tx) : null;
            xid = note?.xid ?? null;
            if (note && feed) seen = feed.expectSeen(note.xid, note.listeners);
            if (xid) feed?.committing(xid);
            await commit();
            if (xid) feed?.committed(xid);
            options.afterCommit?.();
            return done;
          } catch (error) {
            await rollback().catch(() => undefined);
            if (xid) feed?.forget(xid);
            return batch.map((): Outcome => ({ ok: false, error }));
          }
        },
      );
    } catch (error) {
      // No transaction could be begun.
      for (const p of batch) p.reject(error);
      return;
    }
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
    // Answered once every replica has heard of the commit; meanwhile this slot goes on with the next transaction,
    // so that a replica slow to say so (up to the 2 s cap) delays these answers, not every write after them.
    const answer = () => {
      for (const { p, o } of answered) {
        if (o.ok === true) p.resolve(o.value);
        else if (o.ok === false) p.reject(o.error);
      }
    };
    if (xid === null) answer();
    else void seen.then(answer);
  }

  /** The units of the next transaction: the first alone if it must be, else those queued up to one that must be alone. */
  function nextBatch(): Pending[] {
    if (queue[0]!.alone) return queue.splice(0, 1);
    let n = 1;
    while (n < queue.length && n < maxBatch && !queue[n]!.alone) n++;
    return queue.splice(0, n);
  }

  async function drain(): Promise<void> {
    running++;
    try {
      while (queue.length > 0) {
        // Let the requests that arrived meanwhile queue their units, so they share this batch:
        // SQLite calls block the event loop (a commit waits for the disk); on PostgreSQL, when
        // other transactions are under way, as each costs its begin, commit and disk sync.
        if (!postgres || running > 1) await new Promise<void>((resolve) => setImmediate(resolve));
        if (queue.length > 0) await runBatch(nextBatch());
      }
    } finally {
      running--;
    }
  }

  return {
    run<T>(unit: WriteUnit<T>, options: WriteOptions = {}): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ unit, resolve: resolve as (v: unknown) => void, reject, attempts: 0, alone: false, durable: options.durable ?? true });
        if (running < slots) void drain();
      });
    },
  };
}
