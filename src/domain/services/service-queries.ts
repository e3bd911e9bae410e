import { sql } from 'kysely';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import type { Service, ServiceDetail } from '../model/service.js';
import { findVisibleService, serviceColumns, toService } from './service-access.js';
import { linkedPages } from '../status-pages/status-pages.js';
import { feedHealthOf } from './feed-knowledge.js';
import { statusOf } from './service-status.js';

/** The third-party catalog, demo services included, by name. */
export async function listCatalog(ctx: DomainContext): Promise<Service[]> {
  const rows = await ctx.db.selectFrom('services').select(serviceColumns).where('company_id', 'is', null).orderBy('name').orderBy('id').execute();
  return rows.map((row) => toService(ctx, row));
}

/**
 * One catalog service, or one of the company's custom services, with its
 * current status; for a vendor with a feed, also when the feed was last read
 * and why its last read failed (null when fine, and for services without a feed).
 */
export async function getServiceStatus(ctx: DomainContext, company: Company, urlname: string): Promise<ServiceDetail> {
  const service = await findVisibleService(ctx, company, urlname);
  // A custom service's public status page is its first linked page.
  const page = service.companyId === null ? undefined : (await linkedPages(ctx.db, service.id))[0];
  return {
    ...service,
    statusPageUrl: page?.url ?? service.statusPageUrl,
    status: await statusOf(ctx.db, service.id, ctx.clock.now().getTime()),
    ...(await feedHealthOf(ctx, service.id)),
  };
}

/** The company's own custom services, by name. */
export async function listCustomServices(ctx: DomainContext, company: Company): Promise<Service[]> {
  const rows = await ctx.db.selectFrom('services').select(serviceColumns).where('company_id', '=', company.id).orderBy('name').execute();
  return rows.map((row) => toService(ctx, row));
}

/**
 * Services the company can address whose name or urlname contains the text,
 * best first: an exact match, then those that begin with it, then the rest, by name.
 */
export async function searchServices(ctx: DomainContext, company: Company, text: string, limit = 25): Promise<Service[]> {
  const typed = text.trim().toLowerCase();
  // A % or _ typed by the user only widens the match.
  const pattern = `%${typed}%`;
  const lowerName = sql<string>`lower(name)`;
  const rows = await ctx.db
    .selectFrom('services')
    .select(['id', 'name', 'urlname', 'company_id', 'status_page_url'])
    .where((eb) => eb.or([eb('company_id', 'is', null), eb('company_id', '=', company.id)]))
    .where((eb) => eb.or([eb(lowerName, 'like', pattern), eb('urlname', 'like', pattern)]))
    .orderBy((eb) =>
      eb
        .case()
        .when(eb.or([eb('urlname', '=', typed), eb(lowerName, '=', typed)]))
        .then(0)
        .when(eb.or([eb('urlname', 'like', `${typed}%`), eb(lowerName, 'like', `${typed}%`)]))
        .then(1)
        .else(2)
        .end(),
    )
    .orderBy('name')
    .limit(limit)
    .execute();
  return rows.map((row) => toService(ctx, row));
}
