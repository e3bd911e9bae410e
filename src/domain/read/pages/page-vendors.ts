import type { DomainContext } from '../../context.js';
import { incidentRow, toSummary } from '../../incidents/incident-repository.js';
import type { IncidentSummary } from '../../model/incident.js';
import type { Knowledge, ServiceStatus } from '../../model/service.js';
import { serviceTrackerUrl } from '../../model/service.js';
import { knowledgeOf } from '../../services/feed-knowledge.js';
import type { VendorComponent } from '../../vendors/vendor-snapshot.js';
import type { ShownStatus } from '../../model/shown-status.js';
import { shownStatus } from '../../model/shown-status.js';

/** A third-party service a page shows beside its own: never the page's status, always told as read. */
export interface VendorView {
  name: string;
  urlname: string;
  /** `unknown` when its feed was never read or has not been read for too long (see feed-knowledge). */
  status: ShownStatus;
  /** Why there is no data, when `status` is `unknown`: plain words for the public, never the feed's error. */
  reason: string | null;
  /** Since when, where that is known: the feed's last successful read. */
  since: Date | null;
  components: VendorComponent[];
  trackerUrl: string;
  /** The vendor's open incidents, newest first, with the components they affect. */
  open: { id: number; title: string; components: string[] }[];
}

/** A third-party service a page names, as the catalog holds it. */
export interface PageVendor {
  id: number;
  name: string;
  urlname: string;
  /** The components its feed last listed, as stored. */
  components: string | null;
}

/** The catalog services a page names beside its own (unknown names left out). */
export async function pageVendors(ctx: DomainContext, urlnames: readonly string[]): Promise<PageVendor[]> {
  if (urlnames.length === 0) return [];
  return ctx.db
    .selectFrom('services')
    .leftJoin('vendor_feeds', 'vendor_feeds.service_id', 'services.id')
    .select(['services.id', 'services.name', 'services.urlname', 'vendor_feeds.components'])
    .where('services.urlname', 'in', [...urlnames])
    .where('services.company_id', 'is', null)
    .execute();
}

/** What a page tells of its vendors besides their statuses: whether each is known, and their open incidents. */
export interface VendorFacts {
  knowledge: Map<number, Knowledge>;
  open: IncidentSummary[];
}

export async function vendorFactsOf(ctx: DomainContext, vendors: readonly PageVendor[], now: number): Promise<VendorFacts> {
  if (vendors.length === 0) return { knowledge: new Map(), open: [] };
  const ids = vendors.map((v) => v.id);
  const [knowledge, open] = await Promise.all([
    knowledgeOf(ctx.db, ids, now),
    incidentRow(ctx.db, now)
      .where('incidents.service_id', 'in', ids)
      .where('incidents.resolved', '=', 0)
      .where('incidents.user_generated', '=', 0)
      .orderBy('incidents.created_at', 'desc')
      .execute(),
  ]);
  return { knowledge, open: open.map((row) => toSummary(row, now)).filter((i) => !i.resolved) };
}

/** The page's third-party services in the page's order, with the statuses its render read. */
export function vendorViews(
  ctx: DomainContext,
  urlnames: readonly string[],
  vendors: readonly PageVendor[],
  facts: VendorFacts,
  statuses: ReadonlyMap<number, ServiceStatus>,
): VendorView[] {
  const byUrlname = new Map(vendors.map((v) => [v.urlname, v]));
  return urlnames.flatMap((urlname) => {
    const vendor = byUrlname.get(urlname);
    if (!vendor) return [];
    return [
      {
        name: vendor.name,
        urlname: vendor.urlname,
        ...shownStatus(statuses.get(vendor.id) ?? 'ok', facts.knowledge.get(vendor.id)),
        components: vendor.components ? (JSON.parse(vendor.components) as VendorComponent[]) : [],
        trackerUrl: serviceTrackerUrl(ctx.publicUrl, vendor.urlname),
        open: facts.open.filter((i) => i.serviceId === vendor.id).map((i) => ({ id: i.id, title: i.title, components: i.components })),
      },
    ];
  });
}
