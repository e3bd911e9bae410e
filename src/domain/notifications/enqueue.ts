import type { Kysely } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';

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

/**
 * Queues one notification for delivery, due at once. Call it inside the
 * transaction of the change it tells of, so both commit or neither.
 */
export async function enqueue(
  trx: Kysely<Database>,
  row: { companyId: number; subscriberId: number | null; stream: string; event: string; payload: unknown; now: number },
): Promise<void> {
  await insertRow(trx, {
    company: row.companyId,
    subscriber: row.subscriberId,
    stream: row.stream,
    event: row.event,
    payload: JSON.stringify(row.payload),
    now: row.now,
  });
}
