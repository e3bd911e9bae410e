import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';

/*
 * One notion of maintenance for every reader: a company's maintenance (the
 * API's, the chat's) and a window the config declares on a catalog service
 * (`services[].maintenance`, a vendor's planned work of no company) both
 * put their services in `maintenance` while under way. A company's counts
 * from its start to its end unless completed or cancelled before.
 */

/** Whether the service (a column reference or an id) is under maintenance at `now`. */
export function maintenanceUnderWay<DB extends Database, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  service: Expression<number> | number,
  now: number,
): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<Database, never>;
  return e.or([
    e.exists(
      e
        .selectFrom('maintenance_windows')
        .select('maintenance_windows.id')
        .where('maintenance_windows.service_id', '=', service)
        .where('maintenance_windows.starts_at', '<=', now)
        .where('maintenance_windows.ends_at', '>', now),
    ),
    e.exists(
      e
        .selectFrom('maintenance_services')
        .innerJoin('maintenances', 'maintenances.id', 'maintenance_services.maintenance_id')
        .select('maintenances.id')
        .where('maintenance_services.service_id', '=', service)
        .where('maintenances.status', 'in', ['scheduled', 'in_progress'])
        .where('maintenances.starts_at', '<=', now)
        .where('maintenances.ends_at', '>', now),
    ),
  ]);
}

/** Of these services, those under maintenance at `now`. */
export async function servicesUnderMaintenance(db: Kysely<Database>, serviceIds: readonly number[], now: number): Promise<Set<number>> {
  if (serviceIds.length === 0) return new Set();
  const [windows, maintenances] = await Promise.all([
    db
      .selectFrom('maintenance_windows')
      .select('service_id')
      .where('service_id', 'in', serviceIds)
      .where('starts_at', '<=', now)
      .where('ends_at', '>', now)
      .execute(),
    db
      .selectFrom('maintenance_services')
      .innerJoin('maintenances', 'maintenances.id', 'maintenance_services.maintenance_id')
      .select('maintenance_services.service_id')
      .where('maintenance_services.service_id', 'in', serviceIds)
      .where('maintenances.status', 'in', ['scheduled', 'in_progress'])
      .where('maintenances.starts_at', '<=', now)
      .where('maintenances.ends_at', '>', now)
      .execute(),
  ]);
  return new Set([...windows, ...maintenances].map((r) => Number(r.service_id)));
}

/** A maintenance as a page shows it: a company's, or a window of the config (no title of its own, no text). */
export interface ShownMaintenance {
  /** Null for a window of the config. */
  id: number | null;
  serviceIds: number[];
  serviceNames: string[];
  title: string | null;
  description: string;
  status: 'scheduled' | 'in_progress' | 'completed';
  startsAt: Date;
  /** For one completed early, when it was completed. */
  endsAt: Date;
  /** When the company made it and last changed it; null for a window of the config. */
  createdAt: Date | null;
  updatedAt: Date | null;
}

/**
 * The maintenances of these services not over by `since`, cancelled ones
 * left out, soonest first: one entry per company maintenance (however many
 * of the services it covers), one per config window.
 */
export async function maintenancesOfServices(db: Kysely<Database>, serviceIds: readonly number[], since: number, now: number): Promise<ShownMaintenance[]> {
  if (serviceIds.length === 0) return [];
  const [windows, rows] = await Promise.all([
    db
      .selectFrom('maintenance_windows')
      .innerJoin('services', 'services.id', 'maintenance_windows.service_id')
      .select(['maintenance_windows.service_id', 'maintenance_windows.starts_at', 'maintenance_windows.ends_at', 'services.name'])
      .where('maintenance_windows.service_id', 'in', serviceIds)
      .where('maintenance_windows.ends_at', '>', since)
      .execute(),
    db
      .selectFrom('maintenance_services')
      .innerJoin('maintenances', 'maintenances.id', 'maintenance_services.maintenance_id')
      .innerJoin('services', 'services.id', 'maintenance_services.service_id')
      .select([
        'maintenances.id',
        'maintenances.title',
        'maintenances.description',
        'maintenances.starts_at',
        'maintenances.ends_at',
        'maintenances.status',
        'maintenances.updated_at',
        'maintenances.created_at',
        'maintenance_services.service_id',
        'services.name',
      ])
      .where('maintenance_services.service_id', 'in', serviceIds)
      .where('maintenances.status', 'in', ['scheduled', 'in_progress', 'completed'])
      .where('maintenances.ends_at', '>', since)
      .orderBy('services.id')
      .execute(),
  ]);
  const byId = new Map<number, ShownMaintenance>();
  for (const r of rows) {
    const id = Number(r.id);
    const completed = r.status === 'completed';
    const shown = byId.get(id) ?? {
      id,
      serviceIds: [],
      serviceNames: [],
      title: r.title,
      description: r.description,
      status: completed ? 'completed' : Number(r.starts_at) <= now ? 'in_progress' : 'scheduled',
      startsAt: new Date(Number(r.starts_at)),
      endsAt: new Date(completed ? Math.min(Number(r.ends_at), Number(r.updated_at)) : Number(r.ends_at)),
      createdAt: new Date(Number(r.created_at)),
      updatedAt: new Date(Number(r.updated_at)),
    };
    shown.serviceIds.push(Number(r.service_id));
    shown.serviceNames.push(r.name);
    byId.set(id, shown);
  }
  const fromConfig: ShownMaintenance[] = windows.map((w) => ({
    id: null,
    serviceIds: [Number(w.service_id)],
    serviceNames: [w.name],
    title: null,
    description: '',
    status: Number(w.ends_at) <= now ? 'completed' : Number(w.starts_at) <= now ? 'in_progress' : 'scheduled',
    startsAt: new Date(Number(w.starts_at)),
    endsAt: new Date(Number(w.ends_at)),
    createdAt: null,
    updatedAt: null,
  }));
  return [...byId.values(), ...fromConfig].sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime() || (a.id ?? 0) - (b.id ?? 0));
}

/**
 * The custom monitors paused at `now`: those watching a service under
 * maintenance. Their failures open no incident and their probes count in no
 * uptime (see monitor-prober.ts).
 */
export async function monitorsUnderMaintenance(db: Kysely<Database>, now: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom('custom_monitors')
    .select('custom_monitors.id')
    .where('custom_monitors.service_id', 'is not', null)
    .where((eb) => maintenanceUnderWay(eb, eb.ref('custom_monitors.service_id') as Expression<number>, now))
    .execute();
  return new Set(rows.map((r) => Number(r.id)));
}
