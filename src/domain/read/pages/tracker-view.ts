import type { DomainContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { Incident, IncidentSummary } from '../../model/incident.js';
import { findIncidentRow, incidentRow, loadIncident, toSummary } from '../../incidents/incident-repository.js';
import { statusOf } from '../../services/service-status.js';
import { knowledgeOf } from '../../services/feed-knowledge.js';
import type { VendorMaintenance } from '../../vendors/vendor-snapshot.js';
import { vendorMaintenancesOf } from '../../vendors/vendor-feeds.js';
import type { VendorComponent } from '../../vendors/vendor-snapshot.js';
import type { ShownStatus } from '../../model/shown-status.js';
import { shownStatus } from '../../model/shown-status.js';
import { linkedPages } from '../../status-pages/status-pages.js';
import type { LinkedPage } from '../../status-pages/status-pages.js';

const TRACKER_WINDOW_MS = 30 * 86_400_000;

/** The first status page showing a custom service, if any: its incidents are public there. */
async function pageShowing(ctx: DomainContext, serviceId: number): Promise<LinkedPage | null> {
  return (await linkedPages(ctx.db, serviceId))[0] ?? null;
}

export interface TrackedService {
  name: string;
  urlname: string;
  /** `unknown` when its feed was never read or has not been read for too long (see feed-knowledge). */
  status: ShownStatus;
  /** Why there is no data, when `status` is `unknown`: plain words for the public, never the feed's error. */
  reason: string | null;
  /** Since when, where that is known: the feed's last successful read. */
  since: Date | null;
  /** The vendor's own status page. */
  statusPageUrl: string | null;
  components: VendorComponent[];
  /** The vendor's maintenances upcoming or under way, soonest first, as its feed last listed them. */
  maintenances: VendorMaintenance[];
  /** Incidents of the last 30 days (and any still open), newest first; user reports are marked. */
  incidents: IncidentSummary[];
  /** A company's own service: the status page that shows it (null for a catalog service). */
  page: LinkedPage | null;
  custom: boolean;
}

/**
 * What `{public_url}/services/{urlname}` shows: a catalog service in full; a
 * custom service only where a status page shows it. Else not_found, exactly
 * as for a name that does not exist: a company's private names stay unknown.
 */
export async function trackedService(ctx: DomainContext, urlname: string): Promise<TrackedService> {
  const service = await ctx.db
    .selectFrom('services')
    .leftJoin('vendor_feeds', 'vendor_feeds.service_id', 'services.id')
    .select(['services.id', 'services.name', 'services.urlname', 'services.company_id', 'services.status_page_url', 'vendor_feeds.components'])
    .where('services.urlname', '=', urlname)
    .executeTakeFirst();
  if (!service) throw notFound('service');
  const now = ctx.clock.now().getTime();
  const custom = service.company_id !== null;
  const page = custom ? await pageShowing(ctx, service.id) : null;
  if (custom && page === null) throw notFound('service');
  const rows = await incidentRow(ctx.db, now)
    .where('incidents.service_id', '=', service.id)
    .where((eb) => eb.or([eb('incidents.created_at', '>=', now - TRACKER_WINDOW_MS), eb('incidents.resolved', '=', 0)]))
    .where('incidents.user_generated', 'in', custom ? [0] : [0, 1])
    .orderBy('incidents.created_at', 'desc')
    .orderBy('incidents.id', 'desc')
    .execute();
  const [status, knowledge, maintenances] = await Promise.all([
    statusOf(ctx.db, service.id, now),
    knowledgeOf(ctx.db, [service.id], now),
    vendorMaintenancesOf(ctx.db, [service.id], now),
  ]);
  return {
    name: service.name,
    urlname: service.urlname,
    ...shownStatus(status, knowledge.get(service.id)),
    statusPageUrl: custom ? (page?.url ?? null) : service.status_page_url,
    components: service.components ? (JSON.parse(service.components) as VendorComponent[]) : [],
    maintenances: maintenances.get(service.id) ?? [],
    incidents: rows.map((row) => toSummary(row, now)),
    page,
    custom,
  };
}

/**
 * What `{public_url}/incidents/{id}` shows: any third-party incident; an
 * incident of a company's own service only where a status page shows that
 * service. Else not_found, exactly as for an id that does not exist.
 */
export async function trackedIncident(ctx: DomainContext, id: number): Promise<{ incident: Incident; page: { slug: string; name: string } | null }> {
  const now = ctx.clock.now().getTime();
  const row = await findIncidentRow(ctx.db, id, now);
  if (!row) throw notFound('incident');
  if (row.service_company_id === null) return { incident: await loadIncident(ctx, ctx.db, row), page: null };
  const page = row.user_generated === 1 ? null : await pageShowing(ctx, row.service_id);
  if (!page) throw notFound('incident');
  return { incident: await loadIncident(ctx, ctx.db, row), page };
}
