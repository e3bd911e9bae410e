import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../db/schema.js';
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

/** One monitor's probes of one hour, summed. */
export interface ProbeHourSums extends Sums {
  monitorId: number;
  /** Start of the hour, epoch ms. */
  hour: number;
}

const hourOf = (at: number): number => Math.floor(at / HOUR_MS) * HOUR_MS;

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

// PostgreSQL sums bigints as numeric, which arrives as a string.
const sumsOf = (r: { probes: unknown; ups: unknown; total_ms: unknown; max_ms: unknown }): Sums => ({
  probes: Number(r.probes),
  ups: Number(r.ups),
  totalMs: Number(r.total_ms),
  maxMs: Number(r.max_ms),
});

/** The span read at `now`: the 24 hours and the HISTORY_DAYS days that end with the hour under way. */
function spanAt(now: number) {
  const thisHour = hourOf(now);
  return { thisHour, firstHour: thisHour - 23 * HOUR_MS, firstDay: firstDayAt(now) };
}

/** One series' history from its sums per hour and per day (keyed `${series}:${start}`). */
function historyOf(span: ReturnType<typeof spanAt>, series: string | number, byHour: Map<string, Sums>, byDay: Map<string, Sums>): ProbeHistory {
  const hours = Array.from({ length: 24 }, (_, i) => {
    const start = span.firstHour + i * HOUR_MS;
    return bucketOf(start, byHour.get(`${series}:${start}`));
  });
  const days = Array.from({ length: HISTORY_DAYS }, (_, i) => {
    const start = span.firstDay + i * DAY_MS;
    return bucketOf(start, byDay.get(`${series}:${start}`));
  });
  return { hours, days, last24Hours: combine(hours), last90Days: combine(days) };
}

const dayOf = sql<number>`hour - hour % ${sql.lit(DAY_MS)}`;

/**
 * The last 24 hours (hourly) and 90 days (daily) of each monitor, all regions
 * together, read at the clock's now. Reads at most 24 + 90 rows per monitor,
 * summed by the database, however long the history.
 */
export async function probeHistories(ctx: DomainContext, monitorIds: readonly number[]): Promise<Map<number, ProbeHistory>> {
  const span = spanAt(ctx.clock.now().getTime());
  const histories = new Map<number, ProbeHistory>();
  if (monitorIds.length === 0) return histories;
  const ids = [...monitorIds];
  const [hourRows, dayRows] = await Promise.all([
    ctx.db
      .selectFrom('probe_hours')
      .select(['monitor_id', 'hour', 'probes', 'ups', 'total_ms', 'max_ms'])
      .where('monitor_id', 'in', ids)
      .where('hour', '>=', span.firstHour)
      .where('hour', '<=', span.thisHour)
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
      .where('hour', '>=', span.firstDay)
      .where('hour', '<=', span.thisHour)
      .groupBy(['monitor_id', dayOf])
      .execute(),
  ]);
  const byHour = new Map(hourRows.map((r) => [`${r.monitor_id}:${r.hour}`, sumsOf(r)]));
  const byDay = new Map(dayRows.map((r) => [`${r.monitor_id}:${Number(r.day)}`, sumsOf(r)]));
  for (const id of ids) histories.set(id, historyOf(span, id, byHour, byDay));
  return histories;
}

/**
 * One monitor's history per region that probed it in the last HISTORY_DAYS
 * days, by region name in name order; read as probeHistories reads the combined one.
 */
export async function regionProbeHistories(ctx: DomainContext, monitorId: number): Promise<Map<string, ProbeHistory>> {
  const span = spanAt(ctx.clock.now().getTime());
  const [hourRows, dayRows] = await Promise.all([
    ctx.db
      .selectFrom('probe_region_hours')
      .select(['region', 'hour', 'probes', 'ups', 'total_ms', 'max_ms'])
      .where('monitor_id', '=', monitorId)
      .where('hour', '>=', span.firstHour)
      .where('hour', '<=', span.thisHour)
      .execute(),
    ctx.db
      .selectFrom('probe_region_hours')
      .select((eb) => [
        'region',
        dayOf.as('day'),
        eb.fn.sum<number>('probes').as('probes'),
        eb.fn.sum<number>('ups').as('ups'),
        eb.fn.sum<number>('total_ms').as('total_ms'),
        eb.fn.max<number>('max_ms').as('max_ms'),
      ])
      .where('monitor_id', '=', monitorId)
      .where('hour', '>=', span.firstDay)
      .where('hour', '<=', span.thisHour)
      .groupBy(['region', dayOf])
      .execute(),
  ]);
  const byHour = new Map(hourRows.map((r) => [`${r.region}:${r.hour}`, sumsOf(r)]));
  const byDay = new Map(dayRows.map((r) => [`${r.region}:${Number(r.day)}`, sumsOf(r)]));
  const regions = [...new Set(dayRows.map((r) => r.region))].sort();
  return new Map(regions.map((region) => [region, historyOf(span, region, byHour, byDay)]));
}

/**
 * Removes the hours before the first day of the daily series (so at most
 * 24 * HISTORY_DAYS rows per monitor, and per monitor and region, stay), one monitor's range at a time (the
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
        // The same hours per region go with them; counted once, as the hours of the combined series are.
        await trx.deleteFrom('probe_region_hours').where('monitor_id', '=', id).where('hour', '<', cutoff).execute();
      }
      return n;
    });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return removed;
}
