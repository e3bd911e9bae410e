import type { Kysely } from 'kysely';
import { writePageLayout } from '../status-pages/page-layout.js';
import { slugOf } from '../status-pages/page-slug.js';
import type { Database } from '../../db/schema.js';
import { invalidInput } from '../errors.js';
import type { Path } from './apply-chat.js';
import type { StatusPageSpec } from './setup.js';
import { catalogServiceId, companyName, ownedBy, serviceIdOf } from './setup-lookups.js';
import { isSuppressed } from '../status-pages/email-suppressions.js';

/** A config subscriber that the apply did not sign up, because the address unsubscribed through a mail's link. */
export interface SuppressedSubscriber {
  /** The entry in the config, e.g. companies.0.status_pages.0.subscribers.2. */
  path: Path;
  email: string;
  page: string;
}

/** The address a page is served at by statusbot itself. */
export const pagePath = (slug: string): string => `/status/${slug}`;

/**
 * The page's own host: that of its configured url when it differs from
 * public_url's (a proxy serves the page there, at /), else null.
 */
function ownHostOf(url: string | undefined, publicUrl: string): string | null {
  if (!url) return null;
  const host = new URL(url).host.toLowerCase();
  return host === new URL(publicUrl).host.toLowerCase() ? null : host;
}

/**
 * A company's status pages as declared: each found by its slug (pages made
 * before slugs existed: by url), with exactly the services, vendors, monitors
 * and config subscribers the file lists. Subscribers who signed up on the page
 * stay.
 */
export async function applyStatusPages(
  trx: Kysely<Database>,
  options: { companyId: number; pages: readonly StatusPageSpec[]; publicUrl: string; now: number; path: Path },
): Promise<SuppressedSubscriber[]> {
  const suppressed: SuppressedSubscriber[] = [];
  const { companyId, publicUrl, now } = options;
  for (const [i, p] of options.pages.entries()) {
    const at: Path = [...options.path, 'status_pages', i];
    const slug = p.slug ?? slugOf(p.name);
    const url = (p.url ?? `${publicUrl}${pagePath(slug)}`).replace(/\/+$/, '');
    const host = ownHostOf(p.url, publicUrl);
    const taken = await trx.selectFrom('status_pages').select(['id', 'company_id', 'name']).where('slug', '=', slug).executeTakeFirst();
    if (taken && taken.company_id !== companyId) {
      const holder = ownedBy(taken.name, await companyName(trx, taken.company_id));
      throw invalidInput([...at, p.slug ? 'slug' : 'name'], `the status page slug ${slug} is already taken by ${holder}`);
    }
    if (host) {
      const sameHost = await trx
        .selectFrom('status_pages')
        .select(['slug', 'name', 'company_id'])
        .where('host', '=', host)
        .where('slug', '!=', slug)
        .executeTakeFirst();
      if (sameHost) {
        const holder = ownedBy(sameHost.name, await companyName(trx, sameHost.company_id));
        throw invalidInput([...at, 'url'], `the host ${host} already serves the status page ${sameHost.slug}, ${holder}`);
      }
    }
    const page =
      taken ??
      (await trx
        .selectFrom('status_pages')
        .select(['id', 'company_id'])
        .where('company_id', '=', companyId)
        .where('url', '=', url)
        .where('slug', 'like', 'page-%')
        .executeTakeFirst());
    const monitors = await monitorIdsOf(trx, companyId, p.monitors, at);
    const thirdParty: string[] = [];
    for (const [j, urlname] of p.third_party.entries()) {
      await catalogServiceId(trx, urlname, [...at, 'third_party', j]);
      thirdParty.push(urlname);
    }
    const fields = { name: p.name, slug, url, host, third_party: JSON.stringify(thirdParty), monitors: JSON.stringify(monitors) };
    let pageId: number;
    if (page) {
      await trx.updateTable('status_pages').set(fields).where('id', '=', page.id).execute();
      pageId = page.id;
    } else {
      const row = await trx
        .insertInto('status_pages')
        .values({ company_id: companyId, ...fields, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      pageId = row.id;
    }

    const serviceIds: number[] = [];
    for (const [j, urlname] of p.services.entries()) {
      const serviceId = await serviceIdOf(trx, urlname, companyId, [...at, 'services', j], true);
      serviceIds.push(serviceId);
      await trx
        .insertInto('status_page_services')
        .values({ status_page_id: pageId, service_id: serviceId, updated_at: now })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    let unlink = trx.deleteFrom('status_page_services').where('status_page_id', '=', pageId);
    if (serviceIds.length > 0) unlink = unlink.where('service_id', 'not in', serviceIds);
    await unlink.execute();
    const idOf = new Map(p.services.map((urlname, j) => [urlname, serviceIds[j]!]));
    await writePageLayout(trx, pageId, {
      order: serviceIds,
      groups: p.groups.map((g) => ({ name: g.name, serviceIds: g.services.map((urlname) => idOf.get(urlname)!) })),
    });

    for (const j of await applySubscribers(trx, pageId, p.subscribers, now)) {
      suppressed.push({ path: [...at, 'subscribers', j], email: (p.subscribers[j] as { email: string }).email, page: p.name });
    }
  }
  return suppressed;
}

async function monitorIdsOf(trx: Kysely<Database>, companyId: number, ids: readonly number[], at: Path): Promise<number[]> {
  for (const [j, id] of ids.entries()) {
    const row = await trx.selectFrom('custom_monitors').select('company_id').where('id', '=', id).executeTakeFirst();
    if (row?.company_id !== companyId) throw invalidInput([...at, 'monitors', j], `${id} is not a custom monitor of this company`);
  }
  return [...ids];
}

/**
 * Webhooks and config email addresses exactly as declared, but for addresses
 * that unsubscribed through a mail's link (their positions are returned);
 * addresses that signed up on the page are left as they are.
 */
async function applySubscribers(trx: Kysely<Database>, pageId: number, subscribers: StatusPageSpec['subscribers'], now: number): Promise<number[]> {
  const hooks: number[] = [];
  const emails: string[] = [];
  const suppressed: number[] = [];
  for (const [i, sub] of subscribers.entries()) {
    if ('webhook' in sub) {
      const row = await trx
        .insertInto('subscribers')
        .values({ status_page_id: pageId, kind: 'webhook', target: sub.webhook, secret: sub.secret, created_at: now })
        .onConflict((oc) => oc.columns(['status_page_id', 'kind', 'target']).doUpdateSet({ secret: sub.secret }))
        .returning('id')
        .executeTakeFirstOrThrow();
      hooks.push(row.id);
      continue;
    }
    const email = sub.email.toLowerCase();
    if (await isSuppressed(trx, pageId, email)) {
      suppressed.push(i);
      continue;
    }
    emails.push(email);
    await trx
      .insertInto('email_subscribers')
      .values({ status_page_id: pageId, email, state: 'confirmed', origin: 'config', services: null, created_at: now, confirmed_at: now })
      .onConflict((oc) => oc.columns(['status_page_id', 'email']).doUpdateSet({ state: 'confirmed', origin: 'config', confirmed_at: now }))
      .execute();
  }
  let drop = trx.deleteFrom('subscribers').where('status_page_id', '=', pageId);
  if (hooks.length > 0) drop = drop.where('id', 'not in', hooks);
  await drop.execute();
  let dropEmails = trx.deleteFrom('email_subscribers').where('status_page_id', '=', pageId).where('origin', '=', 'config');
  if (emails.length > 0) dropEmails = dropEmails.where('email', 'not in', emails);
  await dropEmails.execute();
  return suppressed;
}
