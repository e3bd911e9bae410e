import type { DomainContext } from '../../context.js';
import { maintenancesOfServices } from '../../services/maintenance-windows.js';

/** Where a maintenance stands at the clock's now (Statuspage's words for it). */
export type MaintenanceStage = 'scheduled' | 'in_progress' | 'completed';

/** A maintenance touching services of a page, as pages and their Statuspage documents show it. */
export interface PageMaintenance {
  /** Stable as long as the maintenance is the same one. */
  key: string;
  /** The company's maintenance (its page is `/maintenances/{id}`); null for a window of the config. */
  id: number | null;
  title: string;
  /** What is done and why; null when nothing says. */
  description: string | null;
  stage: MaintenanceStage;
  startsAt: Date;
  endsAt: Date;
  /** The page's services it covers. */
  services: { id: number; name: string }[];
  createdAt: Date;
  /** When it last changed stage (or was made, while scheduled). */
  updatedAt: Date;
}

/**
 * Every maintenance of these services not over by `since`, by start, cancelled
 * ones left out: the company's maintenances and the config's windows. The one
 * place pages (and their Statuspage documents) read maintenance from. A
 * window of the config is known by nothing but its service and times (so that
 * is its key, and its start stands for when it was made).
 */
export async function pageMaintenances(ctx: DomainContext, serviceIds: readonly number[], since: number, now: number): Promise<PageMaintenance[]> {
  const shown = await maintenancesOfServices(ctx.db, serviceIds, since, now);
  return shown.map((m) => {
    const services = m.serviceIds.map((id, i) => ({ id, name: m.serviceNames[i]! }));
    const windowKey = `${m.serviceIds[0]}-${m.startsAt.getTime()}-${m.endsAt.getTime()}`;
    return {
      key: m.id === null ? windowKey : `m${m.id}`,
      id: m.id,
      title: m.title ?? `Maintenance of ${services.map((s) => s.name).join(', ')}`,
      description: m.description === '' ? null : m.description,
      stage: m.status,
      startsAt: m.startsAt,
      endsAt: m.endsAt,
      services,
      createdAt: m.createdAt ?? m.startsAt,
      updatedAt: m.updatedAt ?? (m.status === 'completed' ? m.endsAt : m.startsAt),
    };
  });
}
