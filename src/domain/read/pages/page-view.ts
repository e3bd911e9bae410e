import type { DomainContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { Incident, IncidentSummary } from '../../model/incident.js';
import { findIncidentRow, incidentRow, loadIncident, toSummary } from '../../incidents/incident-repository.js';
import type { ServiceStatus } from '../../model/service.js';
import { statusesOf } from '../../services/service-status.js';
import { findPage } from '../../status-pages/page-directory.js';
import type { PageLayout } from '../../status-pages/page-layout.js';
import { readPageLayout } from '../../status-pages/page-layout.js';
import type { PageMaintenance } from './page-maintenances.js';
import { pageMaintenances } from './page-maintenances.js';
import type { PublicPage } from '../../status-pages/page-directory.js';
import type { PageHealth } from './page-status.js';
import { pageHealth } from './page-status.js';
import { BAR_DAYS, DAY_MS, dayStartOf, daysOf } from './service-days.js';
import type { DayView } from './service-days.js';
import type { VendorView } from './page-vendors.js';
import { pageVendors, vendorFactsOf, vendorViews } from './page-vendors.js';

/** Past incidents per page of the history. */
export const HISTORY_PAGE_SIZE = 20;

export interface PageServiceView {
  id: number;
  name: string;
  urlname: string;
  status: ServiceStatus;
  /** When the service was made: it has been known since. */
  createdAt: Date;
  /** When its status last changed (an incident opened or resolved, a maintenance began or ended), else when it was made. */
  statusChangedAt: Date;
  days: DayView[];
  /** Over the days with data; null without any. */
  uptime: number | null;
}

export interface MaintenanceView {
  /** The names of the page's services it covers, joined. */
  serviceName: string;
  /** Null for a window the config declares, which has no title of its own. */
  title: string | null;
  /** What the company announced; empty for a window of the config. */
  description: string;
  /** The company's maintenance (its page is `/maintenances/{id}`); null for a window of the config. */
  id: number | null;
  startsAt: Date;
  endsAt: Date;
  /** Under way now (else upcoming). */
  active: boolean;
}

export interface PageGroupView {
  name: string;
  serviceIds: number[];
}

export interface PageView {
  page: PublicPage;
  /** The page's own status (its services and monitors), with the monitors that are down or not probed yet. */
  health: PageHealth;
  services: PageServiceView[];
  /** Open incidents of the page's services, newest first, with their timelines. */
  open: Incident[];
  /** Resolved incidents of the last 7 days, newest first. */
  recent: IncidentSummary[];
  maintenance: MaintenanceView[];
  /** Maintenance of the page's services over the days shown: completed, in progress and scheduled, by start. */
  maintenances: PageMaintenance[];
  /** Headings over some of `services`, in the config's order, each with its services in its own order. */
  groups: PageGroupView[];
  /** Shown beside the page's status, never counted in it. */
  vendors: VendorView[];
  /** When anything shown last changed. */
  updatedAt: Date;
}

/** The page's services, by name; see inLayoutOrder. */
async function pageServices(ctx: DomainContext, pageId: number) {
  return ctx.db
    .selectFrom('status_page_services')
    .innerJoin('services', 'services.id', 'status_page_services.service_id')
    .select(['services.id', 'services.name', 'services.urlname', 'services.created_at', 'status_page_services.updated_at'])
    .where('status_page_services.status_page_id', '=', pageId)
    .orderBy('services.name')
    .orderBy('services.id')
    .execute();
}

/** The services in the layout's order; those it does not name (a layout not written yet) after them, as they come. */
function inLayoutOrder<S extends { id: number }>(services: readonly S[], layout: PageLayout): S[] {
  const position = new Map(layout.order.map((id, i) => [id, i]));
  return [...services].sort((a, b) => (position.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (position.get(b.id) ?? Number.MAX_SAFE_INTEGER));
}

/** Per service, the last time an incident opened or resolved (a status change), up to now; user reports change no status shown. */
async function lastIncidentChanges(ctx: DomainContext, serviceIds: number[], now: number): Promise<Map<number, number>> {
  if (serviceIds.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('incidents')
    .select((eb) => [
      'service_id',
      eb.fn.max('created_at').as('opened'),
      eb.fn.max(eb.case().when('resolved_at', '<=', now).then(eb.ref('resolved_at')).end()).as('resolved'),
    ])
    .where('service_id', 'in', serviceIds)
    .where('user_generated', '=', 0)
    .where('created_at', '<=', now)
    .groupBy('service_id')
    .execute();
  return new Map(rows.map((r) => [r.service_id, Math.max(Number(r.opened), Number(r.resolved ?? 0))]));
}

/** Incidents of the services touching [since, now], as they read now; user reports are not shown. */
async function incidentsSince(ctx: DomainContext, serviceIds: number[], since: number, now: number): Promise<IncidentSummary[]> {
  if (serviceIds.length === 0) return [];
  const rows = await incidentRow(ctx.db, now)
    .where('incidents.service_id', 'in', serviceIds)
    .where('incidents.user_generated', '=', 0)
    .where((eb) => eb.or([eb('incidents.resolved', '=', 0), eb('incidents.resolved_at', '>=', since), eb('incidents.created_at', '>=', since)]))
    .orderBy('incidents.created_at', 'desc')
    .orderBy('incidents.id', 'desc')
    .execute();
  return rows.map((row) => toSummary(row, now));
}

/**
 * How a render reads the statuses of the services it shows: `statusesOf`. A
 * page reads them once per render, its own services and its vendors together,
 * and every part of it (the services, the vendors, the page's own status)
 * states them from that one read.
 */
export type StatusReader = (db: DomainContext['db'], serviceIds: readonly number[], now: number) => Promise<Map<number, ServiceStatus>>;

/** Everything `GET /status/{slug}` shows, read at the clock's now. */
export async function pageView(ctx: DomainContext, slug: string, readStatuses: StatusReader = statusesOf): Promise<PageView> {
  const page = await findPage(ctx, slug);
  const now = ctx.clock.now().getTime();
  const [layout, listed, vendorServices] = await Promise.all([readPageLayout(ctx.db, page.id), pageServices(ctx, page.id), pageVendors(ctx, page.thirdParty)]);
  const services = inLayoutOrder(listed, layout);
  const ids = services.map((s) => s.id);
  const since = dayStartOf(now) - (BAR_DAYS - 1) * DAY_MS;
  const [statuses, incidents, maintenances, incidentChanges, vendorFacts] = await Promise.all([
    readStatuses(ctx.db, [...ids, ...vendorServices.map((v) => v.id)], now),
    incidentsSince(ctx, ids, since, now),
    pageMaintenances(ctx, ids, since, now),
    lastIncidentChanges(ctx, ids, now),
    vendorFactsOf(ctx, vendorServices, now),
  ]);
  const vendors = vendorViews(ctx, page.thirdParty, vendorServices, vendorFacts, statuses);
  const windows = maintenances.flatMap((m) =>
    m.services.map((s) => ({ service_id: s.id, name: s.name, starts_at: m.startsAt.getTime(), ends_at: m.endsAt.getTime() })),
  );
  const views: PageServiceView[] = services.map((s) => {
    const own = windows.filter((w) => w.service_id === s.id);
    const days = daysOf(
      s,
      incidents.filter((i) => i.serviceId === s.id),
      own,
      now,
    );
    const measured = days.filter((d) => d.uptime !== null);
    const maintenanceChanges = own.flatMap((w) => [w.starts_at, w.ends_at]).filter((at) => at <= now);
    return {
      id: s.id,
      name: s.name,
      urlname: s.urlname,
      status: statuses.get(s.id) ?? 'ok',
      createdAt: new Date(s.created_at),
      statusChangedAt: new Date(Math.max(s.created_at, incidentChanges.get(s.id) ?? 0, ...maintenanceChanges)),
      days,
      uptime: measured.length === 0 ? null : measured.reduce((sum, d) => sum + d.uptime!, 0) / measured.length,
    };
  });
  const openRows = incidents.filter((i) => !i.resolved);
  const open: Incident[] = [];
  for (const summary of openRows) {
    const row = await findIncidentRow(ctx.db, summary.id, now);
    if (row) open.push(await loadIncident(ctx, ctx.db, row));
  }
  const weekAgo = now - 7 * DAY_MS;
  const recent = incidents.filter((i) => i.resolved && (i.resolvedAt?.getTime() ?? 0) >= weekAgo);
  const changes = [
    ...services.map((s) => s.updated_at),
    ...incidents.map((i) => i.updatedAt.getTime()),
    ...windows.map((w) => (w.starts_at <= now ? w.starts_at : 0)),
  ];
  return {
    page,
    health: await pageHealth(
      ctx,
      page,
      views.map((v) => v.status),
    ),
    services: views,
    open,
    recent,
    maintenance: maintenances
      .filter((m) => m.stage !== 'completed' && m.endsAt.getTime() > now)
      .map((m) => ({
        serviceName: m.services.map((x) => x.name).join(', '),
        title: m.id === null ? null : m.title,
        description: m.description ?? '',
        id: m.id,
        startsAt: m.startsAt,
        endsAt: m.endsAt,
        active: m.startsAt.getTime() <= now,
      })),
    maintenances,
    groups: layout.groups.map((g) => ({ name: g.name, serviceIds: g.serviceIds.filter((id) => ids.includes(id)) })).filter((g) => g.serviceIds.length > 0),
    vendors,
    updatedAt: new Date(Math.max(0, ...changes)),
  };
}

/** One incident of the page's services, with its whole timeline; not_found for any other. */
export async function pageIncident(ctx: DomainContext, slug: string, id: number): Promise<{ page: PublicPage; incident: Incident }> {
  const page = await findPage(ctx, slug);
  const now = ctx.clock.now().getTime();
  const row = await findIncidentRow(ctx.db, id, now);
  if (!row || row.user_generated === 1) throw notFound('incident');
  const shown = await ctx.db
    .selectFrom('status_page_services')
    .select('service_id')
    .where('status_page_id', '=', page.id)
    .where('service_id', '=', row.service_id)
    .executeTakeFirst();
  if (!shown) throw notFound('incident');
  return { page, incident: await loadIncident(ctx, ctx.db, row) };
}

/** Past (resolved) incidents of the page's services, newest first, `HISTORY_PAGE_SIZE` per page (1-based). */
export async function pageHistory(
  ctx: DomainContext,
  slug: string,
  pageNumber: number,
): Promise<{ page: PublicPage; incidents: IncidentSummary[]; more: boolean }> {
  const page = await findPage(ctx, slug);
  const now = ctx.clock.now().getTime();
  const ids = (await pageServices(ctx, page.id)).map((s) => s.id);
  if (ids.length === 0) return { page, incidents: [], more: false };
  const rows = await incidentRow(ctx.db, now)
    .where('incidents.service_id', 'in', ids)
    .where('incidents.user_generated', '=', 0)
    .orderBy('incidents.created_at', 'desc')
    .orderBy('incidents.id', 'desc')
    .limit(HISTORY_PAGE_SIZE + 1)
    .offset((pageNumber - 1) * HISTORY_PAGE_SIZE)
    .execute();
  const incidents = rows.map((row) => toSummary(row, now));
  return { page, incidents: incidents.slice(0, HISTORY_PAGE_SIZE), more: incidents.length > HISTORY_PAGE_SIZE };
}

/** One incident update, as the page's feeds list it. */
export interface FeedEntry {
  incident: Incident;
  update: Incident['updates'][number];
  /** 1 for the incident's first update. */
  number: number;
}

/** Incidents and updates in a page's feeds and incidents.json. */
export const FEED_INCIDENTS = 50;

/** The page's latest incidents (open or not) with their updates, and every update as a feed entry, newest first. */
export async function pageFeed(ctx: DomainContext, slug: string): Promise<{ page: PublicPage; updatedAt: Date; incidents: Incident[]; entries: FeedEntry[] }> {
  const page = await findPage(ctx, slug);
  const now = ctx.clock.now().getTime();
  const ids = (await pageServices(ctx, page.id)).map((s) => s.id);
  const rows =
    ids.length === 0
      ? []
      : await incidentRow(ctx.db, now)
          .where('incidents.service_id', 'in', ids)
          .where('incidents.user_generated', '=', 0)
          .orderBy('incidents.updated_at', 'desc')
          .orderBy('incidents.id', 'desc')
          .limit(FEED_INCIDENTS)
          .execute();
  const incidents: Incident[] = [];
  for (const row of rows) incidents.push(await loadIncident(ctx, ctx.db, row));
  const entries = incidents
    .flatMap((incident) => incident.updates.map((update, i) => ({ incident, update, number: i + 1 })))
    .sort((a, b) => b.update.createdAt.getTime() - a.update.createdAt.getTime() || b.incident.id - a.incident.id || b.number - a.number)
    .slice(0, FEED_INCIDENTS * 4);
  // A feed with no entry yet is as old as its page (never dated 1970).
  const updatedAt = new Date(Math.max(page.createdAt.getTime(), ...incidents.map((i) => i.updatedAt.getTime())));
  return { page, updatedAt, incidents, entries };
}
