import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Rows units left to their transaction's commit, by table (see writer.ts, deferInsert). */
export type Deferred = Map<string, Record<string, unknown>[]>;

/** What a unit says to the writer of its transaction. */
export interface UnitState {
  /** Where rows the unit leaves to the commit go (engines that defer them); null where the unit inserts them itself. */
  deferred: Deferred | null;
  /** The engine's own state of the unit's turn in the transaction (see transactions.ts of each engine). */
  turn: unknown;
  /** Told by a unit that changes nothing another process caches (see writer.ts, changesNothingCached). */
  quiet(): void;
}

/**
 * The unit's state rides on the handle the unit is given (a transaction,
 * a savepoint, or a watching view of the transaction), under this key: what
 * a unit says reaches the writer that gave it the handle, and nothing
 * outlives the transaction.
 */
const UNIT = Symbol('statusbot.writer.unit');
type Handle = Kysely<Database> & { [UNIT]?: UnitState };

export const unitStateOf = (trx: Kysely<Database>): UnitState | undefined => (trx as Handle)[UNIT];

/** Runs `unit` on `handle` with `state`, which the handle carries meanwhile. */
export async function runWith<T>(handle: Kysely<Database>, state: UnitState, unit: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  (handle as Handle)[UNIT] = state;
  try {
    return await unit(handle);
  } finally {
    (handle as Handle)[UNIT] = undefined;
  }
}
