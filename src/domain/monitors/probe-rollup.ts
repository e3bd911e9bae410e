import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import type { Sums } from './probe-hours.js';
import { hourOf } from './probe-hours.js';

/** Rows per statement of a flush (6 parameters each: well under either engine's limit). */
const FLUSH_CHUNK = 500;

export interface ProbeRollup {
  /** Adds one probe to its monitor's hour, in memory: recording costs no write. */
  record(monitorId: number, at: Date, durationMs: number, ok: boolean): void;
  /** Monitor-hours recorded and not yet written. */
  readonly pending: number;
  /**
   * Writes what was recorded since the last flush in one transaction, adding
   * to the hours already stored (by this process or another replica).
   * Resolves with the rows written; on failure they stay pending for the next flush.
   */
  flush(): Promise<number>;
}

/** One monitor's probes of one hour, summed. */
export interface ProbeHourSums extends Sums {
  monitorId: number;
  /** Start of the hour, epoch ms. */
  hour: number;
}

/** One probe as the sums of an hour count it. */
export const probeSums = (monitorId: number, at: number, durationMs: number, ok: boolean): ProbeHourSums =>
  ok
    ? { monitorId, hour: hourOf(at), probes: 1, ups: 1, totalMs: durationMs, maxMs: durationMs }
    : { monitorId, hour: hourOf(at), probes: 1, ups: 0, totalMs: 0, maxMs: 0 };

/** Adds `s` into the sums kept under its monitor and hour. */
export function addSums(into: Map<string, ProbeHourSums>, s: ProbeHourSums): void {
  const key = `${s.monitorId}:${s.hour}`;
  const known = into.get(key);
  if (!known) {
    into.set(key, { ...s });
    return;
  }
  known.probes += s.probes;
  known.ups += s.ups;
  known.totalMs += s.totalMs;
  known.maxMs = Math.max(known.maxMs, s.maxMs);
}

/**
 * Adds probes of `region` to the hours stored, in the caller's transaction:
 * to the combined series (probe_hours) and to the region's own
 * (probe_region_hours). Rows of monitors removed since are dropped; resolves
 * with the monitor-hours written.
 */
export async function addProbeHours(trx: Kysely<Database>, region: string, rows: readonly ProbeHourSums[]): Promise<number> {
  // One order for every replica: two flushes touching the same rows do not deadlock.
  const sorted = [...rows].sort((a, b) => a.monitorId - b.monitorId || a.hour - b.hour);
  let written = 0;
  for (let i = 0; i < sorted.length; i += FLUSH_CHUNK) {
    const chunk = sorted.slice(i, i + FLUSH_CHUNK);
    // A monitor removed by config since its probe has nowhere to go.
    const ids = [...new Set(chunk.map((r) => r.monitorId))];
    const known = new Set((await trx.selectFrom('custom_monitors').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
    const values = chunk
      .filter((r) => known.has(r.monitorId))
      .map((r) => ({ monitor_id: r.monitorId, hour: r.hour, probes: r.probes, ups: r.ups, total_ms: Math.round(r.totalMs), max_ms: Math.round(r.maxMs) }));
    if (values.length === 0) continue;
    await trx
      .insertInto('probe_hours')
      .values(values)
      .onConflict((oc) =>
        oc.columns(['monitor_id', 'hour']).doUpdateSet((eb) => ({
          probes: eb('probe_hours.probes', '+', eb.ref('excluded.probes')),
          ups: eb('probe_hours.ups', '+', eb.ref('excluded.ups')),
          total_ms: eb('probe_hours.total_ms', '+', eb.ref('excluded.total_ms')),
          max_ms: eb.case().when('excluded.max_ms', '>', eb.ref('probe_hours.max_ms')).then(eb.ref('excluded.max_ms')).else(eb.ref('probe_hours.max_ms')).end(),
        })),
      )
      .execute();
    await trx
      .insertInto('probe_region_hours')
      .values(values.map((v) => ({ ...v, region })))
      .onConflict((oc) =>
        oc.columns(['monitor_id', 'region', 'hour']).doUpdateSet((eb) => ({
          probes: eb('probe_region_hours.probes', '+', eb.ref('excluded.probes')),
          ups: eb('probe_region_hours.ups', '+', eb.ref('excluded.ups')),
          total_ms: eb('probe_region_hours.total_ms', '+', eb.ref('excluded.total_ms')),
          max_ms: eb
            .case()
            .when('excluded.max_ms', '>', eb.ref('probe_region_hours.max_ms'))
            .then(eb.ref('excluded.max_ms'))
            .else(eb.ref('probe_region_hours.max_ms'))
            .end(),
        })),
      )
      .execute();
    written += values.length;
  }
  return written;
}

/** Probe results of custom monitors in one region, summed per monitor and hour in memory, written in batches. */
export function createProbeRollup(ctx: DomainContext, region: string): ProbeRollup {
  let pending = new Map<string, ProbeHourSums>();
  let writing: Promise<number> | null = null;

  async function flush(): Promise<number> {
    while (writing) await writing.catch(() => undefined);
    if (pending.size === 0) return 0;
    const batch = pending;
    pending = new Map();
    writing = ctx
      .write((trx) => addProbeHours(trx, region, [...batch.values()]))
      .catch((error: unknown) => {
        for (const r of batch.values()) addSums(pending, r);
        throw error;
      })
      .finally(() => {
        writing = null;
      });
    return writing;
  }

  return {
    record(monitorId, at, durationMs, ok) {
      addSums(pending, probeSums(monitorId, at.getTime(), durationMs, ok));
    },
    get pending() {
      return pending.size;
    },
    flush,
  };
}
