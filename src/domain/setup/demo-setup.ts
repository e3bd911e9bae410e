import { describeIssuedKey, generateApiKey } from '../companies/api-keys.js';
import { NOTIFY_EVENTS } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { DEMO_BOARD_ID, DEMO_COMPANY, DEMO_CUSTOM_SERVICE_ID, DEMO_MONITOR_ID, DEMO_PAGE_SLUG, DEMO_VENDOR } from '../demo/demo-company.js';
import { DEMO_SERVICES } from '../demo/demo-services.js';
import { applySetup } from './apply-setup.js';
import type { Setup } from './setup.js';

/** The demo company's new key (shown once), or the companies the database already holds. */
export type DemoSeed = { created: true; key: string } | { created: false; companies: string[] };

/**
 * On a database without any company: a demo company on the business plan with
 * a custom service, a monitor of this server's health, a board of the demo
 * services, and a status page at /status/demo that shows them all beside a
 * catalog vendor.
 */
export async function seedDemoCompany(ctx: DomainContext): Promise<DemoSeed> {
  const existing = await ctx.db.selectFrom('companies').select('name').orderBy('id').limit(6).execute();
  if (existing.length > 0) return { created: false, companies: existing.map((c) => c.name) };
  const key = generateApiKey();
  const setup: Setup = {
    demo: true,
    services: [],
    companies: [
      {
        name: DEMO_COMPANY,
        plan: 'business',
        notify_on: [...NOTIFY_EVENTS],
        api_keys: [key],
        monitored_services: [],
        custom_services: [{ id: DEMO_CUSTOM_SERVICE_ID, name: 'Demo API', urlname: 'demo-api', status_page_url: null }],
        custom_monitors: [
          {
            id: DEMO_MONITOR_ID,
            name: 'statusbot health',
            url: `${ctx.publicUrl}/healthz`,
            probe_type: 'ping',
            keyword: null,
            interval_seconds: 60,
            service: null,
          },
        ],
        boards: [
          {
            id: DEMO_BOARD_ID,
            name: 'Demo services',
            urlname: 'demo',
            // demo-service-ok is left off, for the README's tour to add it.
            services: DEMO_SERVICES.filter((s) => s.demo !== 'ok').map((s) => ({ urlname: s.urlname, tags: ['demo'] })),
          },
        ],
        status_pages: [
          {
            name: 'Demo status',
            slug: DEMO_PAGE_SLUG,
            services: ['demo-api'],
            third_party: [...DEMO_SERVICES.map((s) => s.urlname), DEMO_VENDOR],
            monitors: [DEMO_MONITOR_ID],
            subscribers: [],
            groups: [],
          },
        ],
        channels: [],
      },
    ],
  };
  await applySetup(ctx, setup);
  await describeIssuedKey(ctx, key, 'demo');
  return { created: true, key };
}
