import type { DomainContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { PublicPage } from '../../status-pages/page-directory.js';
import { findPage } from '../../status-pages/page-directory.js';
import type { ProbeHistory } from '../../monitors/probe-hours.js';
import { probeHistories, regionProbeHistories } from '../../monitors/probe-hours.js';

/**
 * A monitor's state as a page may state it: `unknown` until statusbot holds a
 * probe of it (a monitor starts as up in the database, which no probe said);
 * `failing` when its last probes failed but not yet enough to call it down.
 */
export type ShownMonitorStatus = 'up' | 'failing' | 'down' | 'unknown';

interface MonitorFacts {
  status: 'ok' | 'down';
  consecutive_failures: number;
}

/** What a monitor's row and whether any probe of it is kept say of it (see ShownMonitorStatus). */
export function shownMonitorStatus(row: MonitorFacts, probed: boolean): ShownMonitorStatus {
  if (row.status === 'down') return 'down';
  if (Number(row.consecutive_failures) > 0) return 'failing';
  return probed ? 'up' : 'unknown';
}

/** A custom monitor as a public status page shows it: no url (it may be internal), its status and probe history. */
export interface MonitorPanelData {
  id: number;
  name: string;
  status: ShownMonitorStatus;
  history: ProbeHistory;
  /** Each region's latest probe, by region name: shown where more than one region probes the monitor. */
  regions: RegionLatest[];
}

export interface RegionLatest {
  region: string;
  /** Null when its last probe failed. */
  latencyMs: number | null;
  failing: boolean;
  checkedAt: Date;
}

/** The latest probe of each region, per monitor. */
async function regionsOf(ctx: DomainContext, ids: readonly number[]): Promise<Map<number, RegionLatest[]>> {
  const rows = await ctx.db
    .selectFrom('monitor_regions')
    .select(['monitor_id', 'region', 'latency_ms', 'consecutive_failures', 'checked_at'])
    .where('monitor_id', 'in', ids)
    .orderBy('monitor_id')
    .orderBy('region')
    .execute();
  const byMonitor = new Map<number, RegionLatest[]>();
  for (const r of rows) {
    const failing = Number(r.consecutive_failures) > 0;
    const list = byMonitor.get(r.monitor_id) ?? [];
    list.push({
      region: r.region,
      latencyMs: failing || r.latency_ms === null ? null : Number(r.latency_ms),
      failing,
      checkedAt: new Date(Number(r.checked_at)),
    });
    byMonitor.set(r.monitor_id, list);
  }
  return byMonitor;
}

/** The page's monitors that exist, in the page's order. */
async function monitorRows(ctx: DomainContext, page: PublicPage) {
  if (page.monitors.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('custom_monitors')
    .select(['id', 'name', 'status', 'consecutive_failures', 'created_at'])
    .where('id', 'in', page.monitors)
    .where('company_id', '=', page.companyId)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return page.monitors.flatMap((id) => byId.get(id) ?? []);
}

/** The monitors a page lists, in the page's order, with their last 24 hours and 90 days. */
export async function monitorPanels(ctx: DomainContext, page: PublicPage): Promise<MonitorPanelData[]> {
  const rows = await monitorRows(ctx, page);
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const histories = await probeHistories(ctx, ids);
  const regions = await regionsOf(ctx, ids);
  return rows.flatMap((row) => {
    const history = histories.get(row.id);
    if (!history) return [];
    return [{ id: row.id, name: row.name, status: shownMonitorStatus(row, history.last90Days.probes > 0), history, regions: regions.get(row.id) ?? [] }];
  });
}

/** The page's monitors with only their state: what the page's status is made of, without their history. */
export async function monitorStates(
  ctx: DomainContext,
  page: PublicPage,
): Promise<{ id: number; name: string; status: ShownMonitorStatus; createdAt: Date; statusChangedAt: Date }[]> {
  const rows = await monitorRows(ctx, page);
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  // Its incidents open and resolve as it goes down and up: the row's own updated_at moves at every apply of the config too.
  const changes = await ctx.db
    .selectFrom('monitor_incidents')
    .select((eb) => ['monitor_id', eb.fn.max('created_at').as('opened'), eb.fn.max('resolved_at').as('resolved')])
    .where('monitor_id', 'in', ids)
    .groupBy('monitor_id')
    .execute();
  const changedAt = new Map(changes.map((c) => [c.monitor_id, Math.max(Number(c.opened), Number(c.resolved ?? 0))]));
  const probed = new Set(
    (
      await ctx.db
        .selectFrom('probe_hours')
        .select('monitor_id')
        .distinct()
        .where(
          'monitor_id',
          'in',
          rows.map((r) => r.id),
        )
        .execute()
    ).map((r) => r.monitor_id),
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    status: shownMonitorStatus(row, probed.has(row.id)),
    createdAt: new Date(row.created_at),
    statusChangedAt: new Date(Math.max(row.created_at, changedAt.get(row.id) ?? 0)),
  }));
}

/**
 * One monitor the page at `slug` lists, with its history per region that
 * probed it in the last 90 days (region name → history); not_found for any other.
 */
export async function pageMonitor(
  ctx: DomainContext,
  slug: string,
  id: number,
): Promise<{ page: PublicPage; monitor: MonitorPanelData; byRegion: Map<string, ProbeHistory> }> {
  const page = await findPage(ctx, slug);
  if (!page.monitors.includes(id)) throw notFound('monitor');
  const [[monitor], byRegion] = await Promise.all([monitorPanels(ctx, { ...page, monitors: [id] }), regionProbeHistories(ctx, id)]);
  if (!monitor) throw notFound('monitor');
  return { page, monitor, byRegion };
}
