import type { DomainContext } from '../domain/context.js';
import { monitorsUnderMaintenance } from '../domain/services/maintenance-windows.js';
import { createProbeRollup } from '../domain/monitors/probe-rollup.js';
import { recordProbe, recordRegionLatencies, takeDueProbes } from '../domain/monitors/probe-results.js';
import type { MonitorState } from '../domain/monitors/probe-results.js';
import type { Logger } from '../infrastructure/logger.js';
import { StoppingError } from '../infrastructure/outbound.js';
import type { ProbeClient } from '../probes/probe-client.js';
import { isProbed } from '../probes/probe-kinds.js';
import { phaseOf } from '../probes/probe-settings.js';
import { checkHeartbeat } from '../domain/monitors/heartbeats.js';
import type { DnsRecord, ProbeType } from '../domain/monitors/monitor.js';

interface Scheduled extends MonitorState {
  probeType: ProbeType;
  keyword: string | null;
  record: DnsRecord | null;
  expect: string[] | null;
  dnsServer: string | null;
  daysBeforeExpiry: number | null;
  intervalMs: number;
  /** When the next probe is due (epoch ms). */
  dueAt: number;
  running: boolean;
}

export interface ProberStats {
  started: number;
  /** Probes that started more than a second after they were due. */
  late: number;
  completed: number;
}

export interface MonitorProber {
  /** Starts every probe due by `now` (each monitor every `interval_seconds`) and returns without waiting for them. */
  tick(now: Date): Promise<void>;
  /** Probes every monitor once and waits for all; `statusbot jobs run monitors`. */
  probeAll(): Promise<void>;
  /** Resolves when no probe is under way. */
  idle(): Promise<void>;
  /** Writes the probes' durations and outcomes recorded so far (hourly rollup); on stop, after `idle`. */
  flush(): Promise<void>;
  readonly stats: ProberStats;
}

export interface MonitorProberOptions {
  ctx: DomainContext;
  client: ProbeClient;
  region: string;
  logger: Logger;
  /** Probes under way at once; the rest wait, and count as late if they wait past a second. */
  concurrency?: number;
  /** How often the monitor list is read again, to see monitors added or changed by config. */
  reloadMs?: number;
  /** How often the hourly rollup of probe results is written (one transaction for all monitors). */
  flushMs?: number;
  /** A monotonic clock in milliseconds, for probe durations and the flush interval. */
  monotonicMs?: () => number;
  /** Called once per probe with its duration and outcome (metrics). */
  onProbe?: (durationMs: number, up: boolean) => void;
}

/** The longest a heartbeat monitor goes unchecked. */
const HEARTBEAT_CHECK_SECONDS = 30;

/** A prober's state: its settings, the schedule in memory, and what its probes found but did not write yet. */
interface Prober {
  options: MonitorProberOptions;
  concurrency: number;
  reloadMs: number;
  flushMs: number;
  monotonicMs: () => number;
  rollup: ReturnType<typeof createProbeRollup>;
  /** This region's latest response time per monitor, written with the rollup. */
  latencies: Map<number, { latencyMs: number; at: number }>;
  flushedAt: number;
  monitors: Map<number, Scheduled>;
  waiting: Scheduled[];
  stats: ProberStats;
  inFlight: Set<Promise<void>>;
  loadedAt: number;
  /** Monitors watching a service under maintenance, as of the last tick. */
  paused: Set<number>;
}

/**
 * Probes each custom monitor every `interval_seconds`. The schedule lives in
 * memory (a probe of a healthy monitor writes nothing); results go through
 * the domain's recordProbe. Each probe's duration and outcome is summed per
 * monitor-hour in memory and written every `flushMs`, in one transaction for
 * all monitors. Slow targets hold only their own slot: probes run side by
 * side up to `concurrency`, on the probe client's shared pools.
 */
export function createMonitorProber(options: MonitorProberOptions): MonitorProber {
  const monotonicMs = options.monotonicMs ?? (() => performance.now());
  const p: Prober = {
    options,
    concurrency: options.concurrency ?? 1_000,
    reloadMs: options.reloadMs ?? 30_000,
    flushMs: options.flushMs ?? 30_000,
    monotonicMs,
    rollup: createProbeRollup(options.ctx, options.region),
    latencies: new Map(),
    flushedAt: monotonicMs(),
    monitors: new Map(),
    waiting: [],
    stats: { started: 0, late: 0, completed: 0 },
    inFlight: new Set(),
    loadedAt: -Infinity,
    paused: new Set(),
  };
  return {
    stats: p.stats,
    tick: (at) => tick(p, at),
    async probeAll() {
      await probeAll(p);
      await this.idle();
      await flush(p);
    },
    idle: () => idle(p),
    flush: () => flush(p),
  };
}

/** Starts the probes due by `at`, each taken in the database first (another replica may have it). */
async function tick(p: Prober, at: Date): Promise<void> {
  const { ctx } = p.options;
  const now = at.getTime();
  if (now - p.loadedAt >= p.reloadMs) await reload(p, now);
  p.paused = await monitorsUnderMaintenance(ctx.db, now);
  const due: { m: Scheduled; dueAt: number }[] = [];
  for (const m of p.monitors.values()) {
    if (m.dueAt > now) continue;
    const dueAt = m.dueAt;
    // A probe still under way skips its turn rather than piling up.
    m.dueAt += Math.max(1, Math.ceil((now - m.dueAt + 1) / m.intervalMs)) * m.intervalMs;
    if (!m.running) due.push({ m, dueAt });
  }
  const taken = await takeDueProbes(
    ctx,
    due.map(({ m, dueAt }) => ({ id: m.id, dueAt, next: m.dueAt })),
  );
  for (const { m, dueAt } of due) {
    if (!taken.has(m.id)) continue;
    if (p.inFlight.size < p.concurrency) launch(p, m, dueAt);
    else if (!p.waiting.includes(m)) p.waiting.push(m);
  }
  if ((p.rollup.pending > 0 || p.latencies.size > 0) && p.monotonicMs() - p.flushedAt >= p.flushMs) void flush(p);
}

/** Starts a probe of every monitor (not one under way); `statusbot jobs run monitors`. */
async function probeAll(p: Prober): Promise<void> {
  const { ctx } = p.options;
  await reload(p, ctx.clock.now().getTime());
  p.paused = await monitorsUnderMaintenance(ctx.db, ctx.clock.now().getTime());
  for (const m of p.monitors.values()) {
    if (m.running) continue;
    if (p.inFlight.size < p.concurrency) launch(p, m, Date.now());
    else p.waiting.push(m);
  }
}

async function idle(p: Prober): Promise<void> {
  while (p.inFlight.size > 0 || p.waiting.length > 0) await Promise.race(p.inFlight);
}

/** The monitors as the database has them now: new ones placed in their interval, changed ones updated, removed ones dropped. */
async function reload(p: Prober, now: number): Promise<void> {
  const rows = await p.options.ctx.db
    .selectFrom('custom_monitors')
    .select([
      'id',
      'company_id',
      'name',
      'url',
      'probe_type',
      'keyword',
      'interval_seconds',
      'status',
      'consecutive_failures',
      'dns_record',
      'dns_expect',
      'dns_server',
      'days_before_expiry',
    ])
    .execute();
  const seen = new Set<number>();
  for (const r of rows) {
    seen.add(r.id);
    // A pushed kind (a heartbeat) is checked more often than it is expected, so that a missed one is seen soon after its deadline.
    const intervalMs = (isProbed(r.probe_type) ? r.interval_seconds : Math.min(r.interval_seconds, HEARTBEAT_CHECK_SECONDS)) * 1000;
    const known = p.monitors.get(r.id);
    const base = {
      id: r.id,
      companyId: r.company_id,
      name: r.name,
      url: r.url,
      probeType: r.probe_type,
      keyword: r.keyword,
      record: r.dns_record as DnsRecord | null,
      expect: r.dns_expect === null ? null : (JSON.parse(r.dns_expect) as string[]),
      dnsServer: r.dns_server,
      daysBeforeExpiry: r.days_before_expiry,
      intervalMs,
    };
    if (known) {
      Object.assign(known, base);
      if (!known.running) Object.assign(known, { status: r.status, consecutiveFailures: r.consecutive_failures });
    } else {
      const phase = phaseOf(r.id, intervalMs);
      const dueAt = Math.ceil((now - phase) / intervalMs) * intervalMs + phase;
      p.monitors.set(r.id, { ...base, status: r.status, consecutiveFailures: r.consecutive_failures, dueAt, running: false });
    }
  }
  for (const id of p.monitors.keys()) if (!seen.has(id)) p.monitors.delete(id);
  p.loadedAt = now;
}

/** Runs one monitor's turn in the background; a freed slot lets a waiting monitor start. */
function launch(p: Prober, m: Scheduled, dueAt: number): void {
  m.running = true;
  p.stats.started++;
  if (Date.now() - dueAt > 1000) p.stats.late++;
  const work = (async () => {
    try {
      await runTurn(p, m);
    } catch (error) {
      // A probe the stop cut short says nothing of the target.
      if (!(error instanceof StoppingError)) p.options.logger.error(`probe of monitor ${m.id} could not be recorded`, error);
    } finally {
      m.running = false;
      p.stats.completed++;
    }
  })();
  p.inFlight.add(work);
  void work.finally(() => {
    p.inFlight.delete(work);
    drainWaiting(p);
  });
}

/** A monitor's turn: a probe recorded through the domain, or, for a pushed kind, a check that its ping came in time. */
async function runTurn(p: Prober, m: Scheduled): Promise<void> {
  const { ctx, client, region, logger } = p.options;
  const at = ctx.clock.now();
  if (!isProbed(m.probeType)) {
    // Pushed, not probed: its turn only checks that a ping came in time.
    await checkHeartbeat(ctx, m.id, at.getTime(), region);
    return;
  }
  const started = p.monotonicMs();
  const outcome = await client.probe({
    url: m.url,
    probeType: m.probeType,
    keyword: m.keyword,
    record: m.record,
    expect: m.expect,
    dnsServer: m.dnsServer,
    daysBeforeExpiry: m.daysBeforeExpiry,
  });
  const durationMs = p.monotonicMs() - started;
  p.options.onProbe?.(durationMs, outcome.ok);
  // During a maintenance of its service a monitor's failures open no incident and its uptime leaves the time out;
  // a success still ends an outage that began before.
  const maintained = p.paused.has(m.id);
  if (!maintained) p.rollup.record(m.id, at, durationMs, outcome.ok);
  if (outcome.ok) p.latencies.set(m.id, { latencyMs: Math.round(durationMs), at: at.getTime() });
  if (maintained && !outcome.ok) return;
  const { state, change } = await recordProbe(ctx, m, outcome, region, { latencyMs: Math.round(durationMs), at: at.getTime() });
  m.status = state.status;
  m.consecutiveFailures = state.consecutiveFailures;
  if (change) logger.info(`monitor ${m.id} (${m.name}) ${change === 'down' ? 'is down' : 'recovered'} in ${region}`);
}

/** Writes the rollup (one flush at a time); a failed flush keeps its rows for the next. */
async function flush(p: Prober): Promise<void> {
  const { ctx, region, logger } = p.options;
  p.flushedAt = p.monotonicMs();
  try {
    await p.rollup.flush();
  } catch (error) {
    logger.error('probe results could not be written; they are kept for the next flush', error);
  }
  const written = p.latencies;
  p.latencies = new Map();
  try {
    await recordRegionLatencies(ctx, region, written);
  } catch (error) {
    // Only the latest counts: what a later probe says replaces it.
    for (const [id, l] of written) if (!p.latencies.has(id)) p.latencies.set(id, l);
    logger.warn('response times per region could not be written; kept for the next flush', { reason: (error as Error).message });
  }
}

function drainWaiting(p: Prober): void {
  while (p.waiting.length > 0 && p.inFlight.size < p.concurrency) {
    const m = p.waiting.shift()!;
    launch(p, m, m.dueAt - m.intervalMs);
  }
}
