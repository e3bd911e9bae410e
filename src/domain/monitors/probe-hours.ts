import { sql } from 'kysely';
import type { DomainContext } from '../context.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** How long hours are kept, and the span of the daily series. */
export const HISTORY_DAYS = 90;

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

/** Probes summed: what an hour's row holds. */
export interface Sums {
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

/** Start of the hour `at` falls in. */
export const hourOf = (at: number): number => Math.floor(at / HOUR_MS) * HOUR_MS;

/** Start of the first day of the daily series: today is its last day. */
const firstDayAt = (now: number): number => Math.floor(now / DAY_MS) * DAY_MS - (HISTORY_DAYS - 1) * DAY_MS;

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
