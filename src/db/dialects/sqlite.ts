import { sql } from 'kysely';
import type { CompiledQuery, Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import type { Database, JsonRows, OutboxRow } from '../schema.js';
import { prepared } from '../prepared.js';

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

export const sqliteDialect = {
  jsonRows<O extends object>(
    _db: Kysely<Database>,
    // biome-ignore lint/suspicious/noExplicitAny: any table may be the subquery's
    query: SelectQueryBuilder<Database, any, O>,
    columns: readonly (keyof O & string)[],
    orderBy: keyof O & string,
  ): RawBuilder<JsonRows<O>> {
    const fields = sql.join(columns.map((c) => sql`${sql.lit(c)}, ${sql.ref(`r.${c}`)}`));
    return sql<JsonRows<O>>`(select coalesce(json_group_array(json_object(${fields}) order by ${sql.ref(`r.${orderBy}`)}), '[]') from (${query}) as r)`;
  },

  // In process, a statement costs no round trip: the writes run one by one, in order.
  async runWrites<R = never>(db: Kysely<Database>, writes: readonly CompiledQuery[], read?: CompiledQuery<R>): Promise<R[]> {
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

  lockedReadsMayPredateLock: false as boolean,
  sharedByProcesses: false as boolean,
  forClaim: <Q>(query: Q): Q => query,
  // The autoincrement sees given ids by itself.
  afterGivenIds: async () => undefined,
};
