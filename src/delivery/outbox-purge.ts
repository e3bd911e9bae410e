import { sql } from 'kysely';
import type { DomainContext } from '../domain/context.js';

/**
 * Deletes sent outbox rows whose delivery is more than `retentionDays` old.
 * Pending rows stay, and so do dead letters, however old: `statusbot outbox
 * list` shows them until `outbox retry` puts them back in line.
 *
 * The table is walked by id in pages of `batchSize` rows, each page deleted
 * in a transaction of its own with a yield to the event loop between pages,
 * so the writer is never held for long. The walk ends at the first page that
 * reaches rows created after the cutoff: a row is sent after it was created,
 * so none beyond it can be due for removal.
 */
export async function purgeSentOutbox(ctx: DomainContext, options: { retentionDays: number; batchSize?: number }): Promise<number> {
  const batchSize = options.batchSize ?? 1_000;
  const cutoff = ctx.clock.now().getTime() - options.retentionDays * 86_400_000;
  let after = 0;
  let removed = 0;
  for (;;) {
    const page = await ctx.db.selectFrom('outbox').select(['id', 'created_at']).where('id', '>', after).orderBy('id').limit(batchSize).execute();
    if (page.length === 0) return removed;
    const first = page[0]!.id;
    const last = page.at(-1)!.id;
    // A range, not a list of ids: one statement text, whatever the page holds.
    const result = await ctx.write((trx) =>
      trx
        .deleteFrom('outbox')
        .where('id', '>=', first)
        .where('id', '<=', last)
        .where('state', '=', sql.lit('sent'))
        .where('sent_at', '<', cutoff)
        .executeTakeFirst(),
    );
    removed += Number(result.numDeletedRows);
    if (page.length < batchSize || page.at(-1)!.created_at >= cutoff) return removed;
    after = last;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
