import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ServiceStatus } from '../services/service.js';

export interface LinkedPage {
  id: number;
  name: string;
  url: string;
}

/** The status pages that show a service, oldest first; the first one is the service's public page. */
export async function linkedPages(db: Kysely<Database>, serviceId: number): Promise<LinkedPage[]> {
  return db
    .selectFrom('status_page_services')
    .innerJoin('status_pages', 'status_pages.id', 'status_page_services.status_page_id')
    .select(['status_pages.id', 'status_pages.name', 'status_pages.url'])
    .where('status_page_services.service_id', '=', serviceId)
    .orderBy('status_pages.id')
    .execute();
}

/** Shows a service's new status on every page that links it. Call inside the transaction that changed it. */
export async function publishServiceStatus(
  trx: Kysely<Database>,
  serviceId: number,
  status: ServiceStatus,
  now: number,
): Promise<void> {
  const pages = await trx
    .updateTable('status_page_services')
    .set({ status, updated_at: now })
    .where('service_id', '=', serviceId)
    .returning('status_page_id')
    .execute();
  if (pages.length === 0) return;
  await trx
    .updateTable('status_pages')
    .set({ updated_at: now })
    .where(
      'id',
      'in',
      pages.map((p) => p.status_page_id),
    )
    .execute();
}

export const incidentPageUrl = (page: LinkedPage, incidentId: number): string =>
  `${page.url.replace(/\/+$/, '')}/incidents/${incidentId}`;
