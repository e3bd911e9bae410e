import type { Kysely, Selectable } from 'kysely';
import type { Database, ServicesTable } from '../../db/schema.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import type { Service } from '../model/service.js';
import { serviceTrackerUrl } from '../model/service.js';

export const serviceColumns = ['id', 'name', 'urlname', 'company_id', 'status_page_url'] as const;

export type ServiceRow = Pick<Selectable<ServicesTable>, (typeof serviceColumns)[number]>;

export const toService = (ctx: DomainContext, row: ServiceRow): Service => ({
  id: row.id,
  name: row.name,
  urlname: row.urlname,
  companyId: row.company_id,
  statusPageUrl: row.status_page_url,
  trackerUrl: serviceTrackerUrl(ctx.publicUrl, row.urlname),
});

/**
 * A service the company may address: any catalog service, or one of its own
 * custom services. Another company's custom service does not exist for it.
 */
export async function findVisibleService(ctx: DomainContext, company: Company, urlname: string): Promise<Service> {
  const row = await ctx.db.selectFrom('services').select(serviceColumns).where('urlname', '=', urlname).executeTakeFirst();
  if (!row || (row.company_id !== null && row.company_id !== company.id)) throw notFound('service');
  return toService(ctx, row);
}

/** Its configured monitored services plus every service on one of its boards. */
export async function isMonitoredBy(db: Kysely<Database>, companyId: number, serviceId: number): Promise<boolean> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .or([
          eb.exists(eb.selectFrom('company_monitored_services').select('service_id').where('company_id', '=', companyId).where('service_id', '=', serviceId)),
          eb.exists(
            eb
              .selectFrom('board_services')
              .innerJoin('boards', 'boards.id', 'board_services.board_id')
              .select('board_services.service_id')
              .where('boards.company_id', '=', companyId)
              .where('board_services.service_id', '=', serviceId),
          ),
        ])
        .as('monitored'),
    ])
    .executeTakeFirstOrThrow();
  return Boolean(row.monitored);
}

/**
 * Reading a service's incidents: own custom services always; catalog services
 * on the business plan, or on the free plan when the company monitors them.
 */
export async function assertMayReadIncidentsOf(ctx: DomainContext, company: Company, service: Service): Promise<void> {
  if (service.companyId !== null) {
    if (service.companyId !== company.id) throw notFound('service');
    return;
  }
  if (company.plan === 'business') return;
  if (!(await isMonitoredBy(ctx.db, company.id, service.id))) {
    throw forbidden(`The free plan shows incidents of monitored services only; ${service.urlname} is not monitored`);
  }
}
