import type { CompiledQuery, Expression, Kysely, SqlBool } from 'kysely';
import { dialectOf, batchWrites } from '../../db/dialect.js';
import type { OutboxRow } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import { platformOfStream } from '../model/channel.js';
import type { DomainContext } from '../context.js';

export type { OutboxRow };

/**
 * Whether a notification to `stream` is queued at all: not to a channel of a
 * chat platform that is off in this process (see DomainContext.chatOff).
 */
export function queuable(ctx: Pick<DomainContext, 'chatOff'>, stream: string): boolean {
  const platform = platformOfStream(stream);
  return platform === null || !ctx.chatOff.has(platform);
}

/** The statements that queue these rows, to run in the transaction of the change they tell of (see batchWrites). */
export function outboxWrites(db: Kysely<Database>, rows: readonly OutboxRow[]): CompiledQuery[] {
  return dialectOf(db).outboxWrites(
    db,
    rows.map((row) => ({ row, guarded: false })),
  );
}

/**
 * `outboxWrites` where the rows marked `guarded` are only queued if `guard`
 * holds when the statement runs (see Dialect.lockingReadsMayPredateLock).
 */
export function guardedOutboxWrites(guard: Expression<SqlBool>) {
  return (db: Kysely<Database>, rows: readonly { row: OutboxRow; guarded: boolean }[]): CompiledQuery[] => dialectOf(db).outboxWrites(db, rows, guard);
}

/**
 * Queues notifications for delivery, due at once. Call it inside the
 * transaction of the change they tell of, so both commit or neither.
 */
export async function enqueueAll(trx: Kysely<Database>, rows: readonly OutboxRow[]): Promise<void> {
  await batchWrites(trx, outboxWrites(trx, rows));
}

export async function enqueue(trx: Kysely<Database>, row: OutboxRow): Promise<void> {
  await enqueueAll(trx, [row]);
}

/** Dead rows put back in line, due at once with their attempts reset (`outbox retry`; a room asked for again); narrow it with `where`. */
export function requeueDead(db: Kysely<Database>, now: number) {
  return db
    .updateTable('outbox')
    .set({ state: 'pending', attempts: 0, next_attempt_at: now, lease_until: null, lease_token: null })
    .where('state', '=', 'dead');
}
