import { sql } from 'kysely';
import type { CompiledQuery, Expression, Kysely, SqlBool } from 'kysely';
import { engineOf } from '../../db/database.js';
import { prepared, runWrites } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';

/** One notification to deliver, due at once. */
export interface OutboxRow {
  companyId: number;
  subscriberId: number | null;
  stream: string;
  event: string;
  payload: unknown;
  now: number;
}

const insertRow = prepared<'company' | 'subscriber' | 'stream' | 'event' | 'payload' | 'now', never>((db, p) =>
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

type Arrays = 'companies' | 'subscribers' | 'streams' | 'events' | 'payloads' | 'nows';

const arraysOf = (rows: readonly OutboxRow[]): Record<Arrays, unknown> => ({
  companies: rows.map((r) => r.companyId),
  subscribers: rows.map((r) => r.subscriberId),
  streams: rows.map((r) => r.stream),
  events: rows.map((r) => r.event),
  // One JSON list, whose items PostgreSQL hands back as their text, as JSON.stringify wrote each.
  payloads: JSON.stringify(rows.map((r) => r.payload)),
  nows: rows.map((r) => r.now),
});

/**
 * PostgreSQL: any number of rows in one statement of one text (prepared once),
 * in the order given, so that ids follow it; those marked `guarded` only when
 * `guard` holds.
 */
function unnestInsert(guard?: Expression<SqlBool>) {
  return prepared<Arrays | 'guarded', never>((db, p) =>
    db
      .insertInto('outbox')
      .columns(['company_id', 'subscriber_id', 'stream', 'event', 'payload', 'state', 'next_attempt_at', 'created_at'])
      .expression(
        sql`select r.c, r.s, r.st, r.e, r.p::text, 'pending', r.t, r.t
          from rows from (unnest(${p.companies}::bigint[]), unnest(${p.subscribers}::bigint[]), unnest(${p.streams}::text[]),
            unnest(${p.events}::text[]), json_array_elements(${p.payloads}::json), unnest(${p.nows}::bigint[]), unnest(${p.guarded}::boolean[]))
          with ordinality as r(c, s, st, e, p, t, g, n)
          ${guard ? sql`where not r.g or ${guard}` : sql``}
          order by r.n`,
      ),
  );
}

const insertRows = unnestInsert();

/** The statements that queue these rows, to run in the transaction of the change they tell of (see runWrites). */
export function outboxWrites(db: Kysely<Database>, rows: readonly OutboxRow[]): CompiledQuery[] {
  if (rows.length === 0) return [];
  if (rows.length > 1 && engineOf(db) === 'postgres') return [insertRows.bind(db, { ...arraysOf(rows), guarded: rows.map(() => false) })];
  return rows.map((r) =>
    insertRow.bind(db, {
      company: r.companyId,
      subscriber: r.subscriberId,
      stream: r.stream,
      event: r.event,
      payload: JSON.stringify(r.payload),
      now: r.now,
    }),
  );
}

/**
 * PostgreSQL: `outboxWrites` where the rows marked `guarded` are only queued
 * if `guard` holds when the statement runs.
 */
export function guardedOutboxWrites(guard: Expression<SqlBool>) {
  const insert = unnestInsert(guard);
  return (db: Kysely<Database>, rows: readonly { row: OutboxRow; guarded: boolean }[]): CompiledQuery[] =>
    rows.length === 0 ? [] : [insert.bind(db, { ...arraysOf(rows.map((r) => r.row)), guarded: rows.map((r) => r.guarded) })];
}

/**
 * Queues notifications for delivery, due at once. Call it inside the
 * transaction of the change they tell of, so both commit or neither.
 */
export async function enqueueAll(trx: Kysely<Database>, rows: readonly OutboxRow[]): Promise<void> {
  await runWrites(trx, outboxWrites(trx, rows));
}

export async function enqueue(trx: Kysely<Database>, row: OutboxRow): Promise<void> {
  await enqueueAll(trx, [row]);
}
