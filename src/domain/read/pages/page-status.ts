import type { DomainContext } from '../../context.js';
import type { ShownMonitorStatus } from './monitor-panels.js';
import { monitorStates } from './monitor-panels.js';
import type { ServiceStatus } from '../../model/service.js';
import { statusesOf } from '../../services/service-status.js';
import { findPage } from '../../status-pages/page-directory.js';
import type { PublicPage } from '../../status-pages/page-directory.js';

/**
 * A page's own status, from its services and its monitors (never from its
 * vendors, which are shown beside it): `partial` when one of its monitors is
 * down (a partial outage, worse than a degraded service); `empty` when it
 * shows no service and no monitor; `unknown` when it shows only monitors and
 * none has been probed yet.
 */
export type PageStatus = ServiceStatus | 'partial' | 'unknown' | 'empty';

export interface PageHealth {
  status: PageStatus;
  /** The page's monitors, in its order, with their state. */
  monitors: MonitorState[];
  /** Names of the page's monitors that are down, in the page's order. */
  down: string[];
  /** Names of the page's monitors not probed yet. */
  unprobed: string[];
}

export interface MonitorState {
  id: number;
  name: string;
  status: ShownMonitorStatus;
  createdAt: Date;
  /** When it last went down or came back up, else when it was made. */
  statusChangedAt: Date;
}

const RANK: Record<PageStatus, number> = { empty: 0, unknown: 0, ok: 1, maintenance: 2, minor: 3, partial: 4, major: 5 };

/** The page's status from what it shows (see PageStatus). */
export function pageHealthFrom(services: readonly ServiceStatus[], monitors: readonly MonitorState[]): PageHealth {
  const down = monitors.filter((m) => m.status === 'down').map((m) => m.name);
  const unprobed = monitors.filter((m) => m.status === 'unknown').map((m) => m.name);
  const known: PageStatus[] = [...services, ...(down.length > 0 ? ['partial' as const] : [])];
  if (monitors.length > unprobed.length) known.push('ok');
  const status =
    services.length === 0 && monitors.length === 0 ? 'empty' : known.reduce<PageStatus>((worst, s) => (RANK[s] > RANK[worst] ? s : worst), 'unknown');
  return { status, monitors: [...monitors], down, unprobed };
}

/** The page's status and its monitors' states; its services' statuses are read unless given. */
export async function pageHealth(ctx: DomainContext, page: PublicPage, serviceStatuses?: readonly ServiceStatus[]): Promise<PageHealth> {
  const services = serviceStatuses ?? [...(await pageServiceStatuses(ctx, page)).values()];
  return pageHealthFrom(services, await monitorStates(ctx, page));
}

/** The status of the page at `slug` alone, as its badge states it. */
export async function pageHealthOf(ctx: DomainContext, slug: string): Promise<PageHealth> {
  return pageHealth(ctx, await findPage(ctx, slug));
}

async function pageServiceStatuses(ctx: DomainContext, page: PublicPage): Promise<Map<number, ServiceStatus>> {
  const rows = await ctx.db.selectFrom('status_page_services').select('service_id').where('status_page_id', '=', page.id).execute();
  return statusesOf(
    ctx.db,
    rows.map((r) => r.service_id),
    ctx.clock.now().getTime(),
  );
}
