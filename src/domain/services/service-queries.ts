import { sql } from 'kysely';
import type { Company } from '../companies/company.js';
import type { DomainContext } from '../context.js';
import type { Service, ServiceWithStatus } from './service.js';
import { findVisibleService, serviceColumns, toService } from './service-access.js';
import { linkedPages } from '../status-pages/status-pages.js';
import { statusOf } from './service-status.js';

/** The third-party catalog, demo services included, by name. */
export async function listCatalog(ctx: DomainContext): Promise<Service[]> {
  const rows = await ctx.db
    .selectFrom('services')
    .select(serviceColumns)
    .where('company_id', 'is', null)
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((row) => toService(ctx, row));
}

/** One catalog service, or one of the company's custom services, with its current status. */
export async function getServiceStatus(ctx: DomainContext, company: Company, urlname: string): Promise<ServiceWithStatus> {
  const service = await findVisibleService(ctx, company, urlname);
  // A custom service's public status page is its first linked page.
  const page = service.companyId === null ? undefined : (await linkedPages(ctx.db, service.id))[0];
  return {
    ...service,
    statusPageUrl: page?.url ?? service.statusPageUrl,
    status: await statusOf(ctx.db, service.id, ctx.clock.now().getTime()),
  };
}

/** The company's own custom services, by name. */
export async function listCustomServices(ctx: DomainContext, company: Company): Promise<Service[]> {
  const rows = await ctx.db
    .selectFrom('services')
    .select(serviceColumns)
    .where('company_id', '=', company.id)
    .orderBy('name')
    .execute();
  return rows.map((row) => toService(ctx, row));
}

/** Services the company can address whose name or urlname contains the text; for autocompletion. */
export async function searchServices(ctx: DomainContext, company: Company, text: string, limit = 25): Promise<Service[]> {
  // A % or _ typed by the user only widens the match.
  const pattern = `%${text.trim().toLowerCase()}%`;
  const rows = await ctx.db
    .selectFrom('services')
    .select(serviceColumns)
    .where((eb) => eb.or([eb('company_id', 'is', null), eb('company_id', '=', company.id)]))
    .where((eb) =>
      eb.or([
        eb(sql<string>`lower(name)`, 'like', pattern),
        eb('urlname', 'like', pattern),
      ]),
    )
    .orderBy('name')
    .limit(limit)
    .execute();
  return rows.map((row) => toService(ctx, row));
}
