import { sql } from 'kysely';
import type { Kysely, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryId, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { OpenedDatabase, Outcome, WriteUnit, WriterEngine } from '../../engine.js';
import type { Database } from '../../schema.js';
import { runWith, unitStateOf } from '../../unit-state.js';
import { statementText, toldToOthers } from '../../write-effects.js';
import { LISTENER_NAME_PREFIX } from './change-feed.js';
import type { ChangeFeed } from './change-feed.js';

/*
 * PostgreSQL: the writer's transactions. Several run at once (half the pool),
 * each taking the units queued when it starts, without savepoints (two round
 * trips per unit): when a unit fails, the transaction is undone and each of
 * its units runs again in a transaction of its own. A unit whose service
 * another transaction holds waits for a later transaction (see `lockTurn`).
 * Before answering, a transaction waits until every replica listening before
 * it committed has heard of its commit (see ChangeFeed), so no replica's
 * cache answers a read made after the answer with what was there before;
 * unless it wrote nothing they hear of (see write-effects.ts): then none will.
 */

/** What a transaction must know before it commits: its id, and which replicas listen (see ChangeFeed). */
export interface ChangeNote {
  xid: string;
  listeners: string[];
}

/** A unit's turn in the writer's transaction. */
interface Turn {
  /** Of the whole transaction: the note, null until a statement read it; how many units change nothing cached. */
  tx: { note: ChangeNote | null; quiet: number };
  /** Whether the unit may wait for a row lock (see `lockTurn`). */
  mayWait: boolean;
  /** Statements the unit has run so far. */
  ran: number;
  /** The unit changes nothing that a replica caches (see `quiet`). */
  quiet: boolean;
  /** A statement of the unit wrote a table whose commits replicas hear of, or may have (one whose text is not known). */
  told: boolean;
}

/**
 * The columns that read a change note; a unit's statement may carry them (see
 * `lockTurn`), which spares the writer a round trip of its own.
 */
export const changeNoteColumns = [
  sql<string>`txid_current()::text`.as('xid'),
  sql<string[]>`array(select application_name from pg_stat_activity
    where datname = current_database() and application_name like ${`${LISTENER_NAME_PREFIX}%`})`.as('listeners'),
] as const;

const turnOf = (trx: Kysely<Database>): Turn | undefined => (unitStateOf(trx)?.turn as Turn | null) ?? undefined;

/**
 * How a unit takes a row lock in the writer's transaction: `note`, read the
 * change note along (then hand it to `noteChange`); `skip`, do not wait for a
 * row another transaction holds: throw `LockBusy` if it is held. A
 * transaction shared by several units only waits for a lock in its first unit,
 * or once a unit has run other statements: waiting while holding the locks
 * of the units before it could make two transactions wait for each other.
 */
export function lockTurn(trx: Kysely<Database>): { note: boolean; skip: boolean } {
  const turn = turnOf(trx);
  return { note: turn?.tx.note === null, skip: turn !== undefined && !turn.mayWait && turn.ran === 0 };
}

export function noteChange(trx: Kysely<Database>, note: ChangeNote): void {
  const turn = turnOf(trx);
  if (turn && turn.tx.note === null) turn.tx.note = { xid: note.xid, listeners: note.listeners };
}

/** Thrown by a unit, before it changed anything, whose row lock another transaction holds: the writer runs it again in a later transaction. */
export class LockBusy extends Error {
  constructor() {
    super('the row is locked by another transaction');
    this.name = 'LockBusy';
  }
}

/**
 * A unit that changes nothing a replica caches: it changed nothing at all (a
 * no-op update), or only tables without a change trigger (job leases). No
 * replica hears of such a commit, so a transaction of such units only does
 * not wait for their acknowledgement (it would wait for the timeout).
 */
function quiet(turn: Turn): void {
  if (turn.quiet) return;
  turn.quiet = true;
  turn.tx.quiet += 1;
}

/** Counts the statements of a unit, and tells whether one wrote a table replicas hear of (see write-effects.ts). */
function watching(turn: Turn, compile: (node: RootOperationNode, queryId: QueryId) => string): KyselyPlugin {
  const texts = new WeakMap<QueryId, string>();
  return {
    transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
      // A plain select writes nothing: only other statements are compiled again to be told apart.
      texts.set(queryId, node.kind === 'SelectQueryNode' && node.with === undefined ? '' : compile(node, queryId));
      return node;
    },
    async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      turn.ran++;
      const text = texts.get(queryId) ?? statementText(queryId);
      if (text === undefined || toldToOthers(text)) turn.told = true;
      return result;
    },
  };
}

/** Runs `unit` in its turn, on a view of the transaction that watches its statements. */
async function runTurn<T>(conn: Kysely<Database>, turn: Turn, unit: WriteUnit<T>): Promise<T> {
  const compile = (node: RootOperationNode, queryId: QueryId) => conn.getExecutor().compileQuery(node, queryId).sql;
  const value = await runWith(conn.withPlugin(watching(turn, compile)), { turn, deferred: null, quiet: () => quiet(turn) }, unit);
  if (!turn.told) quiet(turn);
  return value;
}

const turnIn = (tx: Turn['tx'], mayWait: boolean): Turn => ({ tx, mayWait, ran: 0, quiet: false, told: false });

/** The units one after the other; at the first failure the rest is not run (null: the transaction must be undone). */
async function runShared(conn: Kysely<Database>, units: readonly WriteUnit<unknown>[], tx: Turn['tx']): Promise<Outcome[] | null> {
  const outcomes: Outcome[] = [];
  // Once a unit has run statements, the transaction may hold locks: the units after it must not wait for others'.
  let holding = false;
  for (const unit of units) {
    const turn = turnIn(tx, !holding);
    try {
      outcomes.push({ ok: true, value: await runTurn(conn, turn, unit) });
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
 * Every statement is prepared once per connection (see connection.ts) so as to
 * be run without being planned again; yet PostgreSQL may choose to plan one
 * anew at every run, for the values it is given, which costs more than
 * running the small statements of a change. In the writer's transactions
 * they keep the plan they were prepared with. One round trip: `begin` has no
 * parameters, so it is sent as a simple query, which may hold two statements.
 */
const PREPARED_BEGIN = sql.raw('begin; set local plan_cache_mode = force_generic_plan');
const PREPARED_BEGIN_NOT_SYNCED = sql.raw('begin; set local plan_cache_mode = force_generic_plan; set local synchronous_commit = off');
const COMMIT = sql.raw('commit');
const ROLLBACK = sql.raw('rollback');

export function postgresWriter(db: Kysely<Database>, opened: OpenedDatabase | undefined): WriterEngine {
  const feed = (opened?.feed ?? null) as ChangeFeed | null;
  return {
    slots: Math.max(1, Math.floor((opened?.poolSize ?? 1) / 2)),
    // When other transactions are under way, let the requests that arrived meanwhile queue their units, so they
    // share this batch, as each transaction costs its begin, commit and disk sync.
    waitsForMore: (running) => running > 1,
    // Begun by hand on a connection of its own, so that the round trip of `begin` also makes the transaction's
    // statements keep the plan they were prepared with (see PREPARED_BEGIN).
    inTransaction: (durable, fn) =>
      db.connection().execute(async (conn) => {
        await (durable ? PREPARED_BEGIN : PREPARED_BEGIN_NOT_SYNCED).execute(conn);
        const tx: Turn['tx'] = { note: null, quiet: 0 };
        let xid: string | null = null;
        return fn({
          async runUnit(unit) {
            try {
              return { ok: true, value: await runTurn(conn, turnIn(tx, true), unit) };
            } catch (error) {
              return { ok: false, error };
            }
          },
          runUnits: (units) => runShared(conn, units, tx),
          async commit(outcomes) {
            // Which replicas listen, read before the commit: each must hear of it before any unit is answered
            // (unless no unit changed what they cache: then none will hear of it).
            const later = outcomes.filter((o) => o.ok === 'later').length;
            const note = feed && tx.quiet + later < outcomes.length ? await noteOf(conn, tx) : null;
            xid = note?.xid ?? null;
            const seen = note && feed ? { seen: feed.expectSeen(note.xid, note.listeners) } : null;
            if (xid) feed?.committing(xid);
            await COMMIT.execute(conn);
            if (xid) feed?.committed(xid);
            return seen;
          },
          async rollback() {
            try {
              await ROLLBACK.execute(conn);
            } finally {
              if (xid) feed?.forget(xid);
            }
          },
        });
      }),
  };
}
