import type { DomainContext } from './context.js';

export interface RetentionReport {
  incidents: number;
  monitorIncidents: number;
}

/**
 * Removes resolved incidents and monitor incidents created more than
 * `retentionDays` ago, `batchSize` rows per transaction with a yield to the
 * event loop between batches, so that API requests keep their latency.
 * Unresolved incidents stay, however old.
 */
export async function removeExpiredIncidents(
  ctx: DomainContext,
  options: { retentionDays: number; batchSize?: number },
): Promise<RetentionReport> {
  const batchSize = options.batchSize ?? 500;
  const cutoff = ctx.clock.now().getTime() - options.retentionDays * 86_400_000;
  const report: RetentionReport = { incidents: 0, monitorIncidents: 0 };
  for (;;) {
    const ids = (
      await ctx.db
        .selectFrom('incidents')
        .select('id')
        .where('created_at', '<', cutoff)
        .where('resolved', '=', 1)
        .orderBy('id')
        .limit(batchSize)
        .execute()
    ).map((r) => r.id);
    if (ids.length === 0) break;
    await ctx.write((trx) => trx.deleteFrom('incidents').where('id', 'in', ids).execute());
    report.incidents += ids.length;
    await new Promise((resolve) => setImmediate(resolve));
  }
  for (;;) {
    const ids = (
      await ctx.db
        .selectFrom('monitor_incidents')
        .select('id')
        .where('created_at', '<', cutoff)
        .where('resolved', '=', 1)
        .orderBy('id')
        .limit(batchSize)
        .execute()
    ).map((r) => r.id);
    if (ids.length === 0) break;
    await ctx.write((trx) => trx.deleteFrom('monitor_incidents').where('id', 'in', ids).execute());
    report.monitorIncidents += ids.length;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return report;
}
