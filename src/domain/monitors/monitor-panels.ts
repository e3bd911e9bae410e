import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import type { PublicPage } from '../status-pages/page-directory.js';
import { findPage } from '../status-pages/page-directory.js';
import type { MonitorStatus } from './monitor.js';
import type { ProbeHistory } from './probe-hours.js';
import { probeHistories } from './probe-hours.js';

/** A custom monitor as a public status page shows it: no url (it may be internal), its status and probe history. */
export interface MonitorPanelData {
  id: number;
  name: string;
  status: MonitorStatus;
  history: ProbeHistory;
}

/** The monitors a page lists, in the page's order, with their last 24 hours and 90 days. */
export async function monitorPanels(ctx: DomainContext, page: PublicPage): Promise<MonitorPanelData[]> {
  if (page.monitors.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('custom_monitors')
    .select(['id', 'name', 'status'])
    .where('id', 'in', page.monitors)
    .where('company_id', '=', page.companyId)
    .execute();
  const histories = await probeHistories(
    ctx,
    rows.map((r) => r.id),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return page.monitors.flatMap((id) => {
    const row = byId.get(id);
    const history = histories.get(id);
    return row && history ? [{ id: row.id, name: row.name, status: row.status, history }] : [];
  });
}

/** One monitor the page at `slug` lists; not_found for any other. */
export async function pageMonitor(ctx: DomainContext, slug: string, id: number): Promise<{ page: PublicPage; monitor: MonitorPanelData }> {
  const page = await findPage(ctx, slug);
  if (!page.monitors.includes(id)) throw notFound('monitor');
  const [monitor] = await monitorPanels(ctx, { ...page, monitors: [id] });
  if (!monitor) throw notFound('monitor');
  return { page, monitor };
}
