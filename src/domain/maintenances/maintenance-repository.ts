import type { Kysely, Selectable } from 'kysely';
import type { Database, MaintenancesTable } from '../../db/schema.js';
import type { Maintenance } from '../model/maintenance.js';
import { maintenanceTrackerUrl } from '../model/maintenance.js';

export type MaintenanceRow = Selectable<MaintenancesTable>;

/** Maintenances with their services and timelines, in the order of `rows`. */
export async function loadMaintenances(db: Kysely<Database>, publicUrl: string, rows: readonly MaintenanceRow[]): Promise<Maintenance[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [services, updates] = await Promise.all([
    db
      .selectFrom('maintenance_services')
      .innerJoin('services', 'services.id', 'maintenance_services.service_id')
      .select(['maintenance_services.maintenance_id', 'services.id', 'services.name', 'services.urlname'])
      .where('maintenance_services.maintenance_id', 'in', ids)
      .orderBy('services.id')
      .execute(),
    db
      .selectFrom('maintenance_updates')
      .select(['maintenance_id', 'status', 'description', 'created_at'])
      .where('maintenance_id', 'in', ids)
      .orderBy('id')
      .execute(),
  ]);
  return rows.map((row) => ({
    id: Number(row.id),
    companyId: Number(row.company_id),
    title: row.title,
    description: row.description,
    status: row.status,
    startsAt: new Date(Number(row.starts_at)),
    endsAt: new Date(Number(row.ends_at)),
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    services: services.filter((s) => Number(s.maintenance_id) === Number(row.id)).map((s) => ({ id: Number(s.id), name: s.name, urlname: s.urlname })),
    updates: updates
      .filter((u) => Number(u.maintenance_id) === Number(row.id))
      .map((u) => ({ status: u.status, description: u.description, createdAt: new Date(Number(u.created_at)) })),
    trackerUrl: maintenanceTrackerUrl(publicUrl, Number(row.id)),
  }));
}

export async function loadMaintenance(db: Kysely<Database>, publicUrl: string, row: MaintenanceRow): Promise<Maintenance> {
  return (await loadMaintenances(db, publicUrl, [row]))[0]!;
}

export const maintenanceById = (db: Kysely<Database>, id: number) => db.selectFrom('maintenances').selectAll().where('id', '=', id);
