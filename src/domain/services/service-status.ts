import type { Kysely } from 'kysely';
import { lockServiceForChange } from '../../db/locks.js';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import { openAt } from '../demo/demo-view.js';
import type { ServiceStatus } from './service.js';

/**
 * Current status of each service: `maintenance` inside a maintenance window;
 * else, for a vendor whose feed states a status, that status as last read;
 * else the worst open incident (`major` > `minor`), else `ok`. Incidents
 * opened from user reports never change a status.
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
    .where('user_generated', '=', 0)
    .where(openAt(now))
    .execute();
  for (const row of open) {
    if (row.status === 'major' || statuses.get(row.service_id) === 'ok') statuses.set(row.service_id, row.status);
  }

  const stated = await db
    .selectFrom('vendor_feeds')
    .select(['service_id', 'indicator'])
    .where('service_id', 'in', serviceIds)
    .where('indicator', 'is not', null)
    .execute();
  for (const row of stated) statuses.set(row.service_id, row.indicator!);

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

// Each `exists` is one seek on the (service_id, resolved, status) index, however many incidents are open.
const statusFlags = prepared<'service' | 'now', { maintenance: number; indicator: ServiceStatus | null; major: number; minor: number }>((db, p) =>
  db.selectNoFrom((eb) => [
    eb.selectFrom('vendor_feeds').select('indicator').where('service_id', '=', p.service).as('indicator'),
    eb
      .exists(
        eb
          .selectFrom('maintenance_windows')
          .select('id')
          .where('service_id', '=', p.service)
          .where('starts_at', '<=', p.now)
          .where('ends_at', '>', p.now),
      )
      .as('maintenance'),
    eb
      .exists(
        eb
          .selectFrom('incidents')
          .select('id')
          .where('service_id', '=', p.service)
          .where('user_generated', '=', 0)
          .where(openAt(p.now))
          .where('status', '=', 'major'),
      )
      .as('major'),
    eb
      .exists(
        eb
          .selectFrom('incidents')
          .select('id')
          .where('service_id', '=', p.service)
          .where('user_generated', '=', 0)
          .where(openAt(p.now))
          .where('status', '=', 'minor'),
      )
      .as('minor'),
  ]),
);

export async function statusOf(db: Kysely<Database>, serviceId: number, now: number): Promise<ServiceStatus> {
  const [flags] = await statusFlags(db, { service: serviceId, now });
  if (flags?.maintenance) return 'maintenance';
  if (flags?.indicator) return flags.indicator;
  if (flags?.major) return 'major';
  if (flags?.minor) return 'minor';
  return 'ok';
}

/**
 * The status before a change of the service's incidents or feed, read under
 * the service's lock: changes of one service run one after the other, so each
 * tells of a status move once, from what the one before it left.
 */
export async function statusBeforeChange(trx: Kysely<Database>, serviceId: number, now: number): Promise<ServiceStatus> {
  await lockServiceForChange(trx, serviceId);
  return statusOf(trx, serviceId, now);
}
