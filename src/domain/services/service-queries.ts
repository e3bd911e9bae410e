import type { Company } from '../companies/company.js';
import type { DomainContext } from '../context.js';
import { syncDemoServices } from '../demo/demo-services.js';
import type { Service, ServiceWithStatus } from './service.js';
import { findVisibleService, toService } from './service-access.js';
import { linkedPages } from '../status-pages/status-pages.js';
import { statusOf } from './service-status.js';

/** The third-party catalog, demo services included, by name. */
export async function listCatalog(ctx: DomainContext): Promise<Service[]> {
  const rows = await ctx.db
    .selectFrom('services')
    .select(['id', 'name', 'urlname', 'company_id', 'status_page_url'])
    .where('company_id', 'is', null)
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((row) => toService(ctx, row));
}

/** One catalog service, or one of the company's custom services, with its current status. */
export async function getServiceStatus(ctx: DomainContext, company: Company, urlname: string): Promise<ServiceWithStatus> {
  await syncDemoServices(ctx);
  const service = await findVisibleService(ctx, company, urlname);
  // A custom service's public status page is its first linked page.
  const page = service.companyId === null ? undefined : (await linkedPages(ctx.db, service.id))[0];
  return {
    ...service,
    statusPageUrl: page?.url ?? service.statusPageUrl,
    status: await statusOf(ctx.db, service.id, ctx.clock.now().getTime()),
  };
}
