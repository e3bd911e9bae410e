import type { DomainContext } from '../context.js';

/** Where a maintenance stands at the clock's now (Statuspage's words for it). */
export type MaintenanceStage = 'scheduled' | 'in_progress' | 'completed';

/** A maintenance touching services of a page, as pages and their Statuspage documents show it. */
export interface PageMaintenance {
  /** Stable as long as the maintenance is the same one. */
  key: string;
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

const stageAt = (startsAt: number, endsAt: number, now: number): MaintenanceStage =>
  now >= endsAt ? 'completed' : now >= startsAt ? 'in_progress' : 'scheduled';

/**
 * Every maintenance of these services ending after `since`, by start. The
 * one place pages read maintenance from: today the config's windows, each
 * over one service and known by nothing but its service and times (so that
 * is its key, and its start stands for when it was made).
 */
export async function pageMaintenances(ctx: DomainContext, serviceIds: readonly number[], since: number, now: number): Promise<PageMaintenance[]> {
  if (serviceIds.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('maintenance_windows')
    .innerJoin('services', 'services.id', 'maintenance_windows.service_id')
    .select(['maintenance_windows.service_id', 'maintenance_windows.starts_at', 'maintenance_windows.ends_at', 'services.name'])
    .where('maintenance_windows.service_id', 'in', [...serviceIds])
    .where('maintenance_windows.ends_at', '>', since)
    .orderBy('maintenance_windows.starts_at')
    .orderBy('maintenance_windows.service_id')
    .execute();
  return rows.map((w) => {
    const stage = stageAt(w.starts_at, w.ends_at, now);
    return {
      key: `${w.service_id}-${w.starts_at}-${w.ends_at}`,
      title: `Maintenance of ${w.name}`,
      description: null,
      stage,
      startsAt: new Date(w.starts_at),
      endsAt: new Date(w.ends_at),
      services: [{ id: w.service_id, name: w.name }],
      createdAt: new Date(w.starts_at),
      updatedAt: new Date(stage === 'completed' ? w.ends_at : w.starts_at),
    };
  });
}
