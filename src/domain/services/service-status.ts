import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ServiceStatus } from './service.js';

/**
 * Current status of each service: `maintenance` inside a maintenance window,
 * else the worst open incident (`major` > `minor`), else `ok`.
 */
export async function statusesOf(
  db: Kysely<Database>,
  serviceIds: readonly number[],
  now: number,
): Promise<Map<number, ServiceStatus>> {
  const statuses = new Map<number, ServiceStatus>();
  if (serviceIds.length === 0) return statuses;
  for (const id of serviceIds) statuses.set(id, 'ok');

  const open = await db
    .selectFrom('incidents')
    .select(['service_id', 'status'])
    .distinct()
    .where('service_id', 'in', serviceIds)
    .where('resolved', '=', 0)
    .execute();
  for (const row of open) {
    if (row.status === 'major' || statuses.get(row.service_id) === 'ok') statuses.set(row.service_id, row.status);
  }

  const maintenance = await db
    .selectFrom('maintenance_windows')
    .select('service_id')
    .distinct()
    .where('service_id', 'in', serviceIds)
    .where('starts_at', '<=', now)
    .where('ends_at', '>', now)
    .execute();
  for (const row of maintenance) statuses.set(row.service_id, 'maintenance');
  return statuses;
}

export async function statusOf(db: Kysely<Database>, serviceId: number, now: number): Promise<ServiceStatus> {
  return (await statusesOf(db, [serviceId], now)).get(serviceId) ?? 'ok';
}
