import type { CompiledQuery, Expression, Kysely } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';

export interface LinkedPage {
  id: number;
  name: string;
  /** Served at {public_url}/status/{slug}. */
  slug: string;
  url: string;
}

/** The status pages that show a service; order by `id` (the first one is the service's public page). */
export const linkedPagesQuery = (db: Kysely<Database>, service: number | Expression<number>) =>
  db
    .selectFrom('status_page_services')
    .innerJoin('status_pages', 'status_pages.id', 'status_page_services.status_page_id')
    .select(['status_pages.id', 'status_pages.name', 'status_pages.slug', 'status_pages.url'])
    .where('status_page_services.service_id', '=', service);

/** The status pages that show a service, oldest first; the first one is the service's public page. */
const pagesOfService = prepared<'service', LinkedPage>((db, p) => linkedPagesQuery(db, p.service).orderBy('status_pages.id'));

export async function linkedPages(db: Kysely<Database>, serviceId: number): Promise<LinkedPage[]> {
  return pagesOfService(db, { service: serviceId });
}

const touchPages = prepared<'service' | 'now', never>((db, p) =>
  db.updateTable('status_page_services').set({ updated_at: p.now }).where('service_id', '=', p.service),
);

/** Marks the service as changed on every page that links it (its component's `updated_at`): a statement for the change's transaction. */
export const pagesShowChange = (db: Kysely<Database>, serviceId: number, now: number): CompiledQuery => touchPages.bind(db, { service: serviceId, now });

export const incidentPageUrl = (pageUrl: string, incidentId: number): string => `${pageUrl.replace(/\/+$/, '')}/incidents/${incidentId}`;
