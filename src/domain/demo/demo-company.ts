import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { recordAudit } from '../audit/audit-trail.js';
import type { DomainContext } from '../context.js';
import { removeIncidents } from '../incidents/incident-pipeline.js';

export const DEMO_COMPANY = 'Demo';
export const DEMO_BOARD_ID = '00000000-0000-4000-8000-000000000001';
/** Out of the range examples use (the README's config gives Acme 1001 and 501): applying one after a first start works. */
export const DEMO_CUSTOM_SERVICE_ID = 9001;
export const DEMO_MONITOR_ID = 9001;
/** The demo company's status page, at /status/demo. */
export const DEMO_PAGE_SLUG = 'demo';
/** The catalog vendor the demo page shows beside the demo services: its feed is read once the page watches it. */
export const DEMO_VENDOR = 'github';

/**
 * The company a first start made as the demo, if the database holds it: named
 * Demo, with the demo's board, custom service or key. Older versions left no
 * other mark, so these are what tells it from a company of the operator's.
 */
export async function demoCompanyIn(db: Kysely<Database>): Promise<{ id: number; name: string } | null> {
  const row = await db
    .selectFrom('companies as c')
    .select(['c.id', 'c.name'])
    .where('c.name', '=', DEMO_COMPANY)
    .where((eb) =>
      eb.or([
        eb.exists(eb.selectFrom('boards').select('boards.id').whereRef('boards.company_id', '=', 'c.id').where('boards.id', '=', DEMO_BOARD_ID)),
        eb.exists(
          eb
            .selectFrom('services')
            .select('services.id')
            .whereRef('services.company_id', '=', 'c.id')
            .where('services.id', '=', DEMO_CUSTOM_SERVICE_ID)
            .where('services.urlname', '=', 'demo-api'),
        ),
        eb.exists(eb.selectFrom('api_keys').select('api_keys.id').whereRef('api_keys.company_id', '=', 'c.id').where('api_keys.label', '=', 'demo')),
      ]),
    )
    .executeTakeFirst();
  return row ? { id: Number(row.id), name: row.name } : null;
}

/**
 * Removes the demo: the demo company with all it holds (keys, services,
 * monitor, board, status page, their incidents), unless the config declares a
 * company of its name, and the demo services with their incidents and every
 * entry that names them (on boards, pages, channels). Nothing else changes.
 */
export async function removeDemo(ctx: DomainContext, trx: Kysely<Database>, declared: ReadonlySet<string>): Promise<void> {
  const company = await demoCompanyIn(trx);
  if (company && !declared.has(company.name)) {
    // Its incidents go through the incident pipeline's removal; everything else of the company goes with it (foreign
    // keys cascade); its audit rows stay, as the trail of what it did.
    await removeIncidents(ctx, trx, { cause: 'owner_removed', company: company.id });
    await trx.deleteFrom('companies').where('id', '=', company.id).execute();
    await recordAudit(ctx, trx, {
      companyId: null,
      action: 'company.remove',
      targetType: 'company',
      targetId: company.id,
      changes: { name: { from: company.name } },
    });
  }
  const services = await trx.selectFrom('services').select(['id', 'urlname']).where('demo', 'is not', null).orderBy('id').execute();
  if (services.length > 0) {
    const ids = services.map((s) => s.id);
    await removeIncidents(ctx, trx, { cause: 'owner_removed', services: ids });
    await trx.deleteFrom('services').where('id', 'in', ids).execute();
    await recordAudit(ctx, trx, {
      companyId: null,
      action: 'service.remove',
      targetType: 'service',
      targetId: services.map((s) => s.urlname).join(','),
      changes: { urlname: { from: services.map((s) => s.urlname) } },
    });
  }
  // Where the demo job left off.
  await trx.deleteFrom('meta').where('key', 'like', 'demo:%').execute();
}

/** What a visitor may try with the demo, while the database holds it. */
export interface DemoTour {
  /** The demo's status page, unless it was taken away. */
  page: { name: string; slug: string } | null;
  /** The demo's custom service (an incident may be created on it), unless it was taken away. */
  serviceId: number | null;
  /** The name of the catalog vendor its page shows, if it does. */
  vendor: string | null;
}

/** The demo as the database holds it now; null without a demo company. */
export async function demoTour(ctx: DomainContext): Promise<DemoTour | null> {
  const company = await demoCompanyIn(ctx.db);
  if (!company) return null;
  const [page, service, vendor] = await Promise.all([
    ctx.db
      .selectFrom('status_pages')
      .select(['name', 'slug', 'third_party'])
      .where('company_id', '=', company.id)
      .where('slug', '=', DEMO_PAGE_SLUG)
      .executeTakeFirst(),
    ctx.db.selectFrom('services').select('id').where('company_id', '=', company.id).where('id', '=', DEMO_CUSTOM_SERVICE_ID).executeTakeFirst(),
    ctx.db.selectFrom('services').select('name').where('urlname', '=', DEMO_VENDOR).where('company_id', 'is', null).executeTakeFirst(),
  ]);
  const shown = page !== undefined && vendor !== undefined && (JSON.parse(page.third_party) as string[]).includes(DEMO_VENDOR);
  return {
    page: page ? { name: page.name, slug: page.slug } : null,
    serviceId: service ? Number(service.id) : null,
    vendor: shown ? vendor.name : null,
  };
}
