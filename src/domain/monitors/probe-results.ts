import type { Kysely } from 'kysely';
import { dialectOf, paddedIds } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { applyMonitorIncidentChange } from '../incidents/incident-pipeline.js';
import type { MonitorIncidentChange } from '../incidents/incident-pipeline.js';
import type { QuorumReach } from './quorum-reach.js';
import { noteQuorumReach } from './quorum-reach.js';

/**
 * Takes the probes that are due, where several processes share one database
 * (PostgreSQL replicas): each monitor's next probe moves on to `next` only
 * where it was still due, so one process probes it per interval. One process
 * on SQLite takes them all without writing, so that a healthy probe writes nothing.
 */
export async function takeDueProbes(ctx: DomainContext, due: readonly { id: number; dueAt: number; next: number }[]): Promise<Set<number>> {
  if (due.length === 0 || !dialectOf(ctx.db).sharedByProcesses) return new Set(due.map((d) => d.id));
  return ctx.write(async (trx) => {
    const taken = new Set<number>();
    for (const d of due) {
      const result = await trx
        .updateTable('custom_monitors')
        .set({ next_probe_at: d.next })
        .where('id', '=', d.id)
        .where('next_probe_at', '<=', d.dueAt)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) taken.add(d.id);
    }
    return taken;
  });
}

/** Consecutive failed probes that take a monitor down. */
export const FAILURES_TO_DOWN = 2;

export type ProbeOutcome = { ok: true } | { ok: false; reason: string };

export interface MonitorState {
  id: number;
  companyId: number;
  name: string;
  url: string;
  status: 'ok' | 'down';
  consecutiveFailures: number;
}

export type MonitorChange = 'down' | 'recovered' | null;

/**
 * Records one probe of a monitor in one region (this server's, or a probe
 * agent's). Each region keeps its own count of failures in a row: two (one
 * for a missed or failed heartbeat, which is no guess) and that region sees
 * the monitor down. The monitor is down when `quorum` regions among those
 * that reported within two intervals see it down: that opens a monitor
 * incident naming each of them and its failure, and the quorum lost resolves
 * it. Each transition notifies the channels that follow the monitor. A success
 * on a monitor no region sees failing writes nothing.
 */
export async function recordProbe(
  ctx: DomainContext,
  monitor: MonitorState,
  outcome: ProbeOutcome,
  region: string,
  options: RegionProbeOptions = {},
): Promise<RecordedProbe> {
  if (outcome.ok && monitor.status === 'ok' && monitor.consecutiveFailures === 0) return { state: monitor, change: null };
  const recorded = await ctx.write((trx) => recordProbeIn(ctx, trx, monitor, outcome, region, options));
  if (recorded.reach) noteQuorumReach(ctx, monitor, recorded.reach);
  return recorded;
}

export interface RecordedProbe {
  state: MonitorState;
  change: MonitorChange;
  /** The regions the quorum counted; absent when the result was not counted (older than the one kept, or its monitor gone). */
  reach?: QuorumReach;
}

export interface RegionProbeOptions {
  failuresToDown?: number;
  /** How long the probe took; shown per region. */
  latencyMs?: number | null;
  /** When the probe ran (epoch ms); now by default. */
  at?: number;
}

/** `recordProbe` inside a transaction of the caller's (a probe agent's batch records all its results in one). */
export async function recordProbeIn(
  ctx: DomainContext,
  trx: Kysely<Database>,
  monitor: MonitorState,
  outcome: ProbeOutcome,
  region: string,
  options: RegionProbeOptions = {},
): Promise<RecordedProbe> {
  const now = ctx.clock.now().getTime();
  const at = Math.min(options.at ?? now, now);
  const settings = await monitorSettings(trx, monitor.id);
  if (!settings) return { state: monitor, change: null };
  // A result older than the one kept (an agent's buffer sent late) counts no more.
  if (!(await keepRegionResult(trx, monitor.id, region, settings.probe_type, outcome, options.latencyMs ?? null, at))) return { state: monitor, change: null };
  const verdict = await verdictOf(trx, monitor.id, settings, at, options.failuresToDown ?? FAILURES_TO_DOWN);
  const wanted = wantedStatus(settings.status, verdict);
  const moved = wanted !== null && (await moveStatus(trx, monitor.id, { from: settings.status, to: wanted }, verdict.mostFailures, now));
  if (moved) {
    // The monitor's incidents follow its status: the incident pipeline opens or resolves them and tells whom it concerns.
    await applyMonitorIncidentChange(ctx, trx, incidentChange(monitor, wanted, verdict, region), { source: 'monitors', now });
  } else {
    // The most failures any region counts: a success anywhere skips writing only once no region sees failures.
    await trx.updateTable('custom_monitors').set({ consecutive_failures: verdict.mostFailures }).where('id', '=', monitor.id).execute();
  }
  return {
    state: { ...monitor, status: moved ? wanted : settings.status, consecutiveFailures: verdict.mostFailures },
    change: !moved ? null : wanted === 'down' ? 'down' : 'recovered',
    reach: { company: settings.company, live: verdict.live, quorum: verdict.quorum },
  };
}

const monitorSettings = (trx: Kysely<Database>, id: number) =>
  trx
    .selectFrom('custom_monitors')
    .innerJoin('companies', 'companies.id', 'custom_monitors.company_id')
    .select([
      'custom_monitors.status',
      'custom_monitors.probe_type',
      'custom_monitors.interval_seconds',
      'companies.region_quorum',
      'companies.name as company',
    ])
    .where('custom_monitors.id', '=', id)
    .executeTakeFirst();

type MonitorSettings = NonNullable<Awaited<ReturnType<typeof monitorSettings>>>;

/** Keeps a region's result as its latest; false when a later one is kept already. */
async function keepRegionResult(
  trx: Kysely<Database>,
  monitorId: number,
  region: string,
  probeType: MonitorSettings['probe_type'],
  outcome: ProbeOutcome,
  latencyMs: number | null,
  at: number,
): Promise<boolean> {
  const before = await trx
    .selectFrom('monitor_regions')
    .select(['consecutive_failures', 'checked_at'])
    .where('monitor_id', '=', monitorId)
    .where('region', '=', region)
    .executeTakeFirst();
  if (before && before.checked_at > at) return false;
  // A heartbeat has one judge, the servers, whatever region each calls itself: its latest word stands alone.
  if (probeType === 'heartbeat') await trx.deleteFrom('monitor_regions').where('monitor_id', '=', monitorId).where('region', '!=', region).execute();
  const failures = outcome.ok ? 0 : (before?.consecutive_failures ?? 0) + 1;
  const row = { consecutive_failures: failures, reason: outcome.ok ? null : outcome.reason, latency_ms: latencyMs, checked_at: at };
  await trx
    .insertInto('monitor_regions')
    .values({ monitor_id: monitorId, region, ...row })
    .onConflict((oc) => oc.columns(['monitor_id', 'region']).doUpdateSet(row))
    .execute();
  return true;
}

/** What a monitor's regions say, by the quorum rule. */
interface Verdict {
  /** The regions that see it down, with why. */
  seeingDown: { region: string; reason: string }[];
  /** The most failures in a row any region counts. */
  mostFailures: number;
  /** The regions that reported within two intervals. */
  live: number;
  quorum: number;
}

/** The verdict of the regions that reported within two intervals of the probe's own time: results held through an outage are judged as they were seen. */
async function verdictOf(trx: Kysely<Database>, monitorId: number, settings: MonitorSettings, at: number, failuresToDown: number): Promise<Verdict> {
  const fresh = await trx
    .selectFrom('monitor_regions')
    .select(['region', 'consecutive_failures', 'reason'])
    .where('monitor_id', '=', monitorId)
    .where('checked_at', '>=', at - 2 * settings.interval_seconds * 1000)
    .orderBy('region')
    .execute();
  return {
    seeingDown: fresh.filter((r) => r.consecutive_failures >= failuresToDown).map((r) => ({ region: r.region, reason: r.reason ?? 'down' })),
    mostFailures: Math.max(0, ...fresh.map((r) => r.consecutive_failures)),
    live: fresh.length,
    // Heartbeats are pushed to the servers, which alone judge them.
    quorum: settings.probe_type === 'heartbeat' ? 1 : Number(settings.region_quorum),
  };
}

/** The status the verdict asks for, where it is not the monitor's. */
const wantedStatus = (status: 'ok' | 'down', v: Verdict): 'ok' | 'down' | null =>
  status === 'ok' && v.seeingDown.length >= v.quorum ? 'down' : status === 'down' && v.seeingDown.length < v.quorum ? 'ok' : null;

/** Moves the status only where it still is what was read: of regions reporting at once (on PostgreSQL, side by side), one makes the change. */
async function moveStatus(
  trx: Kysely<Database>,
  id: number,
  move: { from: 'ok' | 'down'; to: 'ok' | 'down' },
  mostFailures: number,
  now: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('custom_monitors')
    .set({ status: move.to, consecutive_failures: mostFailures, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', move.from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** What the monitor's move makes of its incidents: a new one naming each region that sees it down and why, or the open ones resolved. */
function incidentChange(monitor: MonitorState, to: 'ok' | 'down', verdict: Verdict, region: string): MonitorIncidentChange {
  const { seeingDown } = verdict;
  if (to === 'ok') return { monitor, event: 'recovered', note: `Up again in ${region}`, region, status: { from: 'down', to: 'ok' } };
  return {
    monitor,
    event: 'down',
    note: downDescription(seeingDown),
    region: seeingDown.map((d) => d.region).join(', '),
    status: { from: 'ok', to: 'down' },
    reason: seeingDown.length === 1 ? seeingDown[0]!.reason : seeingDown.map((d) => `${d.region}: ${d.reason}`).join('; '),
  };
}

/** Rows of response times per statement: 6 values each, well under either engine's limit of parameters. */
const LATENCY_ROWS = 1_000;

/**
 * The response times of successful probes that wrote nothing (a healthy
 * monitor's), written every flush of the prober so that pages show each
 * region's latest; a row holding failures is left to recordProbe.
 */
export async function recordRegionLatencies(
  ctx: DomainContext,
  region: string,
  latencies: ReadonlyMap<number, { latencyMs: number; at: number }>,
): Promise<void> {
  if (latencies.size === 0) return;
  // In slices: kept through a database outage, they may be every monitor's, more than one statement may name.
  const ids = [...latencies.keys()];
  const rows: { monitor_id: number; region: string; consecutive_failures: number; reason: null; latency_ms: number; checked_at: number }[] = [];
  for (let i = 0; i < ids.length; i += LATENCY_ROWS) {
    const known = await ctx.db
      .selectFrom('custom_monitors')
      .select('id')
      .where('id', 'in', paddedIds(ids.slice(i, i + LATENCY_ROWS)))
      .execute();
    for (const { id } of known) {
      const { latencyMs, at } = latencies.get(id)!;
      rows.push({ monitor_id: id, region, consecutive_failures: 0, reason: null, latency_ms: latencyMs, checked_at: at });
    }
  }
  if (rows.length === 0) return;
  await ctx.write(async (trx) => {
    for (let i = 0; i < rows.length; i += LATENCY_ROWS) {
      await trx
        .insertInto('monitor_regions')
        .values(rows.slice(i, i + LATENCY_ROWS))
        .onConflict((oc) =>
          oc
            .columns(['monitor_id', 'region'])
            .doUpdateSet((eb) => ({ latency_ms: eb.ref('excluded.latency_ms'), checked_at: eb.ref('excluded.checked_at') }))
            .where('monitor_regions.consecutive_failures', '=', 0)
            .where((eb) => eb('monitor_regions.checked_at', '<', eb.ref('excluded.checked_at'))),
        )
        .execute();
    }
  });
}

/** "Down in eu: HTTP 500" for one region; "Down in eu: HTTP 500; us: connection refused" for several. */
export const downDescription = (seeingDown: readonly { region: string; reason: string }[]): string =>
  `Down in ${seeingDown.map((d) => `${d.region}: ${d.reason}`).join('; ')}`;
