import type { DomainContext } from './context.js';
import { removeIncidents } from './incidents/incident-pipeline.js';
import { removeExpiredProbeHours } from './monitors/probe-hours.js';

export interface RetentionReport {
  incidents: number;
  monitorIncidents: number;
  /** Monitor-hours of probe results older than the 90 days shown (kept 90 days whatever `retentionDays` says). */
  probeHours: number;
}

/**
 * Removes resolved incidents and monitor incidents created more than
 * `retentionDays` ago, `batchSize` rows per transaction with a yield to the
 * event loop between batches, so that API requests keep their latency.
 * Unresolved incidents stay, however old. Probe results rolled up per hour
 * are kept for the 90 days that status pages show.
 */
export async function removeExpiredIncidents(ctx: DomainContext, options: { retentionDays: number; batchSize?: number }): Promise<RetentionReport> {
  const batchSize = options.batchSize ?? 500;
  const cutoff = ctx.clock.now().getTime() - options.retentionDays * 86_400_000;
  return {
    incidents: await removeInBatches(ctx, 'incidents', cutoff, batchSize),
    monitorIncidents: await removeInBatches(ctx, 'monitor_incidents', cutoff, batchSize),
    probeHours: await removeExpiredProbeHours(ctx),
  };
}

async function removeInBatches(ctx: DomainContext, table: 'incidents' | 'monitor_incidents', cutoff: number, batchSize: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = (
      await ctx.db.selectFrom(table).select('id').where('created_at', '<', cutoff).where('resolved', '=', 1).orderBy('id').limit(batchSize).execute()
    ).map((r) => r.id);
    if (ids.length === 0) return removed;
    // The incident pipeline removes them, with the audit row of what expired.
    await ctx.write((trx) => removeIncidents(ctx, trx, { cause: 'expired', kind: table, ids }));
    removed += ids.length;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
