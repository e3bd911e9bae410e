import { sql } from 'kysely';
import type { CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { EngineQueries } from '../../engine.js';
import { prepared } from '../../prepared.js';
import type { Database, OutboxRow } from '../../schema.js';

/*
 * SQLite: one process writes at a time (the writer holds the file), so a
 * locking read sees what it locked, and no other process claims the same work.
 */

const insertOutboxRow = prepared<'company' | 'subscriber' | 'stream' | 'event' | 'payload' | 'now', never>((db, p) =>
  db.insertInto('outbox').values({
    company_id: p.company,
    subscriber_id: p.subscriber,
    stream: p.stream,
    event: p.event,
    payload: p.payload,
    state: 'pending',
    next_attempt_at: p.now,
    created_at: p.now,
  }),
);

export const sqliteQueries: EngineQueries = {
  json: { object: 'json_object', list: 'json_group_array' },

  // In process, a statement costs no round trip: the writes run one by one, in order.
  async batchWrites<R = never>(db: Kysely<Database>, writes: readonly CompiledQuery[], read?: CompiledQuery<R>): Promise<R[]> {
    const rows = read ? (await db.executeQuery(read)).rows : [];
    for (const write of writes) await db.executeQuery(write);
    return rows;
  },

  // One writer: what a locking read saw still holds, so no row needs a guard.
  outboxWrites: (db: Kysely<Database>, rows: readonly { row: OutboxRow; guarded: boolean }[]): CompiledQuery[] =>
    rows.map(({ row }) =>
      insertOutboxRow.bind(db, {
        company: row.companyId,
        subscriber: row.subscriberId,
        stream: row.stream,
        event: row.event,
        payload: JSON.stringify(row.payload),
        now: row.now,
      }),
    ),

  // In process, reading an id back from its insert costs no round trip.
  reservedId: (_table: 'incidents'): RawBuilder<number> | null => null,
  lockingReadsMayPredateLock: false,
  sharedByProcesses: false,
  forClaim: <Q>(query: Q): Q => query,
  // The autoincrement sees given ids by itself.
  afterGivenIds: async () => undefined,
  stableOrder: sql`rowid`,
};
