import type { DomainContext } from '../../context.js';
import { incidentRow, toSummary } from '../../incidents/incident-repository.js';
import { serviceTrackerUrl } from '../../model/service.js';
import { statusesOf } from '../../services/service-status.js';
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

/** The page's third-party services, in the page's order. */
export async function vendorsOf(ctx: DomainContext, urlnames: readonly string[], now: number): Promise<VendorView[]> {
  if (urlnames.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('services')
    .leftJoin('vendor_feeds', 'vendor_feeds.service_id', 'services.id')
    .select(['services.id', 'services.name', 'services.urlname', 'vendor_feeds.components'])
    .where('services.urlname', 'in', [...urlnames])
    .where('services.company_id', 'is', null)
    .execute();
  const ids = rows.map((r) => r.id);
  const [statuses, knowledge, open] = await Promise.all([
    statusesOf(ctx.db, ids, now),
    knowledgeOf(ctx.db, ids, now),
    incidentRow(ctx.db, now)
      .where('incidents.service_id', 'in', ids.length > 0 ? ids : [-1])
      .where('incidents.resolved', '=', 0)
      .where('incidents.user_generated', '=', 0)
      .orderBy('incidents.created_at', 'desc')
      .execute(),
  ]);
  const openNow = open.map((row) => toSummary(row, now)).filter((i) => !i.resolved);
  const byUrlname = new Map(rows.map((r) => [r.urlname, r]));
  return urlnames.flatMap((urlname) => {
    const row = byUrlname.get(urlname);
    if (!row) return [];
    return [
      {
        name: row.name,
        urlname: row.urlname,
        ...shownStatus(statuses.get(row.id) ?? 'ok', knowledge.get(row.id)),
        components: row.components ? (JSON.parse(row.components) as VendorComponent[]) : [],
        trackerUrl: serviceTrackerUrl(ctx.publicUrl, row.urlname),
        open: openNow.filter((i) => i.serviceId === row.id).map((i) => ({ id: i.id, title: i.title, components: i.components })),
      },
    ];
  });
}
