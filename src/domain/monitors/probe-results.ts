import type { Kysely } from 'kysely';
import { dialectOf, paddedIds } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import type { ChannelRef } from '../model/channel.js';
import { channelStream } from '../model/channel.js';
import type { DomainContext } from '../context.js';
import type { MonitorAnnouncement } from '../notifications/announcement.js';
import { enqueue, enqueueAll, queuable } from '../notifications/enqueue.js';
import { destinationsOfCompanyQuery, monitorDestinationRows } from '../notifications/notify-destination.js';
import type { MonitorEvent } from '../notifications/notify-destination.js';
import { recordAudit } from '../audit/audit-trail.js';
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
  const failuresToDown = options.failuresToDown ?? FAILURES_TO_DOWN;
  const now = ctx.clock.now().getTime();
  const at = Math.min(options.at ?? now, now);
  const current = await trx
    .selectFrom('custom_monitors')
    .innerJoin('companies', 'companies.id', 'custom_monitors.company_id')
    .select([
      'custom_monitors.status',
      'custom_monitors.probe_type',
      'custom_monitors.interval_seconds',
      'companies.region_quorum',
      'companies.name as company',
    ])
    .where('custom_monitors.id', '=', monitor.id)
    .executeTakeFirst();
  if (!current) return { state: monitor, change: null };
  const before = await trx
    .selectFrom('monitor_regions')
    .select(['consecutive_failures', 'checked_at'])
    .where('monitor_id', '=', monitor.id)
    .where('region', '=', region)
    .executeTakeFirst();
  // A result older than the one kept (an agent's buffer sent late) counts no more.
  if (before && before.checked_at > at) return { state: monitor, change: null };
  // A heartbeat has one judge, the servers, whatever region each calls itself: its latest word stands alone.
  if (current.probe_type === 'heartbeat') await trx.deleteFrom('monitor_regions').where('monitor_id', '=', monitor.id).where('region', '!=', region).execute();
  const failures = outcome.ok ? 0 : (before?.consecutive_failures ?? 0) + 1;
  const row = { consecutive_failures: failures, reason: outcome.ok ? null : outcome.reason, latency_ms: options.latencyMs ?? null, checked_at: at };
  await trx
    .insertInto('monitor_regions')
    .values({ monitor_id: monitor.id, region, ...row })
    .onConflict((oc) => oc.columns(['monitor_id', 'region']).doUpdateSet(row))
    .execute();
  // Heartbeats are pushed to the servers, which alone judge them.
  const quorum = current.probe_type === 'heartbeat' ? 1 : current.region_quorum;
  const fresh = await trx
    .selectFrom('monitor_regions')
    .select(['region', 'consecutive_failures', 'reason'])
    .where('monitor_id', '=', monitor.id)
    // As of the probe's own time: an agent's results held through an outage are judged as they were seen.
    .where('checked_at', '>=', at - 2 * current.interval_seconds * 1000)
    .orderBy('region')
    .execute();
  const seeingDown = fresh.filter((r) => r.consecutive_failures >= failuresToDown).map((r) => ({ region: r.region, reason: r.reason ?? 'down' }));
  const mostFailures = Math.max(0, ...fresh.map((r) => r.consecutive_failures));
  let status = current.status;
  let change: MonitorChange = null;
  const wanted = status === 'ok' && seeingDown.length >= quorum ? 'down' : status === 'down' && seeingDown.length < quorum ? 'ok' : null;
  // The status moves only where it still is what was read: of regions reporting at once (on PostgreSQL, side by side), one makes the change.
  const moved =
    wanted !== null &&
    Number(
      (
        await trx
          .updateTable('custom_monitors')
          .set({ status: wanted, consecutive_failures: mostFailures, updated_at: now })
          .where('id', '=', monitor.id)
          .where('status', '=', status)
          .executeTakeFirst()
      ).numUpdatedRows,
    ) === 1;
  if (moved && wanted === 'down') {
    status = 'down';
    change = 'down';
    const description = downDescription(seeingDown);
    const opened = await trx
      .insertInto('monitor_incidents')
      .values({ monitor_id: monitor.id, description, resolved: 0, created_at: now, updated_at: now, resolved_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await announce(ctx, trx, monitor, { change, description, region: seeingDown.map((d) => d.region).join(', '), now });
    await page(trx, monitor, { event: 'down', incidents: [{ id: opened.id, description, created_at: now }], note: description, now, publicUrl: ctx.publicUrl });
  } else if (moved && wanted === 'ok') {
    status = 'ok';
    change = 'recovered';
    const resolved = await trx
      .updateTable('monitor_incidents')
      .set({ resolved: 1, resolved_at: now, updated_at: now })
      .where('monitor_id', '=', monitor.id)
      .where('resolved', '=', 0)
      .returning(['id', 'description', 'created_at'])
      .execute();
    const note = `Up again in ${region}`;
    await announce(ctx, trx, monitor, { change, description: note, region, now });
    await page(trx, monitor, { event: 'recovered', incidents: resolved, note, now, publicUrl: ctx.publicUrl });
  }
  if (change) {
    await recordAudit(ctx, trx, {
      companyId: monitor.companyId,
      action: change === 'down' ? 'custom_monitor.down' : 'custom_monitor.recover',
      targetType: 'custom_monitor',
      targetId: monitor.id,
      changes: {
        status: { from: current.status, to: status },
        ...(change === 'down'
          ? { reason: { to: seeingDown.length === 1 ? seeingDown[0]!.reason : seeingDown.map((d) => `${d.region}: ${d.reason}`).join('; ') } }
          : {}),
      },
    });
  } else {
    // The most failures any region counts: a success anywhere skips writing only once no region sees failures.
    await trx.updateTable('custom_monitors').set({ consecutive_failures: mostFailures }).where('id', '=', monitor.id).execute();
  }
  return {
    state: { ...monitor, status, consecutiveFailures: mostFailures },
    change,
    reach: { company: current.company, live: fresh.length, quorum: Number(quorum) },
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

/** The company's paging and chat destinations (PagerDuty, Opsgenie, Teams, Telegram) hear of the monitor's incident, as of its own incidents. */
async function page(
  trx: Kysely<Database>,
  monitor: MonitorState,
  args: {
    event: MonitorEvent;
    incidents: readonly { id: number; description: string; created_at: number }[];
    note: string;
    now: number;
    publicUrl: string;
  },
): Promise<void> {
  if (args.incidents.length === 0) return;
  const destinations = await destinationsOfCompanyQuery(trx, monitor.companyId).orderBy('notify_destinations.id').execute();
  for (const incident of args.incidents) {
    const rows = monitorDestinationRows(destinations, {
      companyId: monitor.companyId,
      event: args.event,
      monitor: { id: monitor.id, name: monitor.name, url: monitor.url || null },
      incident: { id: Number(incident.id), description: incident.description, createdAt: Number(incident.created_at) },
      url: monitor.url || args.publicUrl,
      note: args.note,
      now: args.now,
    });
    await enqueueAll(trx, rows);
  }
}

async function announce(
  ctx: DomainContext,
  trx: Kysely<Database>,
  monitor: MonitorState,
  event: { change: 'down' | 'recovered'; description: string; region: string; now: number },
): Promise<void> {
  const channels = await trx
    .selectFrom('channel_subscriptions')
    .select(['platform', 'workspace_id', 'channel_id'])
    .where('kind', '=', 'monitor')
    .where('monitor_id', '=', monitor.id)
    .orderBy('id')
    .execute();
  for (const row of channels) {
    const channel: ChannelRef = { platform: row.platform, workspaceId: row.workspace_id, channelId: row.channel_id };
    if (!queuable(ctx, channelStream(channel))) continue;
    const announcement: MonitorAnnouncement = {
      kind: 'monitor',
      channel,
      monitor: { id: monitor.id, name: monitor.name, url: monitor.url },
      change: event.change,
      description: event.description,
      region: event.region,
      at: new Date(event.now).toISOString(),
    };
    await enqueue(trx, {
      companyId: monitor.companyId,
      subscriberId: null,
      stream: channelStream(channel),
      event: `monitor.${event.change}`,
      payload: announcement,
      now: event.now,
    });
  }
}
