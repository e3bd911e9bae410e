import { sql } from 'kysely';
import type { DomainContext } from '../context.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** How long hours are kept, and the span of the daily series. */
export const HISTORY_DAYS = 90;
/** Rows per statement of a flush (6 parameters each: well under either engine's limit). */
const FLUSH_CHUNK = 500;

/**
 * Probes of a span of time (an hour, a day, or many), summed. Durations count
 * successful probes only: a failure's time is its timeout or its refusal, not
 * a response time, and is shown as a failure instead.
 */
export interface ProbeBucket {
  start: Date;
  /** 0: no data. */
  probes: number;
  ups: number;
  /** Share of the probes that succeeded, 0..1; null without data. */
  uptime: number | null;
  /** Mean duration of the successful probes; null without any. */
  avgMs: number | null;
  maxMs: number | null;
}

export interface ProbeHistory {
  /** The last 24 hours, oldest first; the last is the hour under way. */
  hours: ProbeBucket[];
  /** The last HISTORY_DAYS days (UTC), oldest first; the last is today. */
  days: ProbeBucket[];
  last24Hours: ProbeBucket;
  last90Days: ProbeBucket;
}

interface Sums {
  probes: number;
  ups: number;
  totalMs: number;
  maxMs: number;
}

const bucketOf = (start: number, s: Sums | undefined): ProbeBucket =>
  !s || s.probes === 0
    ? { start: new Date(start), probes: 0, ups: 0, uptime: null, avgMs: null, maxMs: null }
    : {
        start: new Date(start),
        probes: s.probes,
        ups: s.ups,
        uptime: s.ups / s.probes,
        avgMs: s.ups === 0 ? null : s.totalMs / s.ups,
        maxMs: s.ups === 0 ? null : s.maxMs,
      };

/** Several buckets as one, starting where the first starts. */
export function combine(buckets: readonly ProbeBucket[]): ProbeBucket {
  const sums: Sums = { probes: 0, ups: 0, totalMs: 0, maxMs: 0 };
  for (const b of buckets) {
    sums.probes += b.probes;
    sums.ups += b.ups;
    sums.totalMs += (b.avgMs ?? 0) * b.ups;
    sums.maxMs = Math.max(sums.maxMs, b.maxMs ?? 0);
  }
  return bucketOf(buckets[0]?.start.getTime() ?? 0, sums);
}

/** Start of the first day of the daily series: today is its last day. */
const firstDayAt = (now: number): number => Math.floor(now / DAY_MS) * DAY_MS - (HISTORY_DAYS - 1) * DAY_MS;

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

/** Probe results of custom monitors, summed per monitor and hour in memory, written in batches. */
export function createProbeRollup(ctx: DomainContext): ProbeRollup {
  let pending = new Map<string, Sums & { monitorId: number; hour: number }>();
  let writing: Promise<number> | null = null;

  function add(monitorId: number, hour: number, s: Sums): void {
    const key = `${monitorId}:${hour}`;
    const known = pending.get(key);
    if (!known) {
      pending.set(key, { monitorId, hour, ...s });
      return;
    }
    known.probes += s.probes;
    known.ups += s.ups;
    known.totalMs += s.totalMs;
    known.maxMs = Math.max(known.maxMs, s.maxMs);
  }

  async function write(rows: (Sums & { monitorId: number; hour: number })[]): Promise<number> {
    // One order for every replica: two flushes touching the same rows do not deadlock.
    rows.sort((a, b) => a.monitorId - b.monitorId || a.hour - b.hour);
    return ctx.write(async (trx) => {
      let written = 0;
      for (let i = 0; i < rows.length; i += FLUSH_CHUNK) {
        const chunk = rows.slice(i, i + FLUSH_CHUNK);
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
              max_ms: eb
                .case()
                .when('excluded.max_ms', '>', eb.ref('probe_hours.max_ms'))
                .then(eb.ref('excluded.max_ms'))
                .else(eb.ref('probe_hours.max_ms'))
                .end(),
            })),
          )
          .execute();
        written += values.length;
      }
      return written;
    });
  }

  async function flush(): Promise<number> {
    while (writing) await writing.catch(() => undefined);
    if (pending.size === 0) return 0;
    const batch = pending;
    pending = new Map();
    writing = write([...batch.values()])
      .catch((error: unknown) => {
        for (const r of batch.values()) add(r.monitorId, r.hour, r);
        throw error;
      })
      .finally(() => {
        writing = null;
      });
    return writing;
  }

  return {
    record(monitorId, at, durationMs, ok) {
      const hour = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
      add(monitorId, hour, ok ? { probes: 1, ups: 1, totalMs: durationMs, maxMs: durationMs } : { probes: 1, ups: 0, totalMs: 0, maxMs: 0 });
    },
    get pending() {
      return pending.size;
    },
    flush,
  };
}

/**
 * The last 24 hours (hourly) and 90 days (daily) of each monitor, read at the
 * clock's now. Reads at most 24 + 90 rows per monitor, summed by the database,
 * however long the history.
 */
export async function probeHistories(ctx: DomainContext, monitorIds: readonly number[]): Promise<Map<number, ProbeHistory>> {
  const now = ctx.clock.now().getTime();
  const thisHour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const firstHour = thisHour - 23 * HOUR_MS;
  const firstDay = firstDayAt(now);
  const histories = new Map<number, ProbeHistory>();
  if (monitorIds.length === 0) return histories;
  const ids = [...monitorIds];
  const dayOf = sql<number>`hour - hour % ${sql.lit(DAY_MS)}`;
  const [hourRows, dayRows] = await Promise.all([
    ctx.db
      .selectFrom('probe_hours')
      .select(['monitor_id', 'hour', 'probes', 'ups', 'total_ms', 'max_ms'])
      .where('monitor_id', 'in', ids)
      .where('hour', '>=', firstHour)
      .where('hour', '<=', thisHour)
      .execute(),
    ctx.db
      .selectFrom('probe_hours')
      .select((eb) => [
        'monitor_id',
        dayOf.as('day'),
        eb.fn.sum<number>('probes').as('probes'),
        eb.fn.sum<number>('ups').as('ups'),
        eb.fn.sum<number>('total_ms').as('total_ms'),
        eb.fn.max<number>('max_ms').as('max_ms'),
      ])
      .where('monitor_id', 'in', ids)
      .where('hour', '>=', firstDay)
      .where('hour', '<=', thisHour)
      .groupBy(['monitor_id', dayOf])
      .execute(),
  ]);
  // PostgreSQL sums bigints as numeric, which arrives as a string.
  const sums = (r: { probes: unknown; ups: unknown; total_ms: unknown; max_ms: unknown }): Sums => ({
    probes: Number(r.probes),
    ups: Number(r.ups),
    totalMs: Number(r.total_ms),
    maxMs: Number(r.max_ms),
  });
  const byHour = new Map(hourRows.map((r) => [`${r.monitor_id}:${r.hour}`, sums(r)]));
  const byDay = new Map(dayRows.map((r) => [`${r.monitor_id}:${Number(r.day)}`, sums(r)]));
  for (const id of ids) {
    const hours = Array.from({ length: 24 }, (_, i) => {
      const start = firstHour + i * HOUR_MS;
      return bucketOf(start, byHour.get(`${id}:${start}`));
    });
    const days = Array.from({ length: HISTORY_DAYS }, (_, i) => {
      const start = firstDay + i * DAY_MS;
      return bucketOf(start, byDay.get(`${id}:${start}`));
    });
    histories.set(id, { hours, days, last24Hours: combine(hours), last90Days: combine(days) });
  }
  return histories;
}

/**
 * Removes the hours before the first day of the daily series (so at most
 * 24 * HISTORY_DAYS rows per monitor stay), one monitor's range at a time (the
 * primary key's order), `batchSize` monitors per transaction.
 */
export async function removeExpiredProbeHours(ctx: DomainContext, options: { batchSize?: number } = {}): Promise<number> {
  const batchSize = options.batchSize ?? 100;
  const cutoff = firstDayAt(ctx.clock.now().getTime());
  const ids = (await ctx.db.selectFrom('custom_monitors').select('id').orderBy('id').execute()).map((r) => r.id);
  let removed = 0;
  for (let i = 0; i < ids.length; i += batchSize) {
    const batch = ids.slice(i, i + batchSize);
    removed += await ctx.write(async (trx) => {
      let n = 0;
      for (const id of batch) {
        const result = await trx.deleteFrom('probe_hours').where('monitor_id', '=', id).where('hour', '<', cutoff).executeTakeFirst();
        n += Number(result.numDeletedRows);
      }
      return n;
    });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return removed;
}
