import { createHash } from 'node:crypto';
import { DEFAULT_SERVICE_LABEL } from '../alerts/alert-settings.js';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { dialectOf } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import { recordAudit } from '../audit/audit-trail.js';
import { hashApiKey } from '../companies/api-keys.js';
import type { DomainContext } from '../context.js';
import { removeDemo } from '../demo/demo-company.js';
import { DEMO_SERVICES } from '../demo/demo-services.js';
import { invalidInput } from '../errors.js';
import { changesBetween } from './apply-changes.js';
import { snapshotSetup } from './setup-snapshot.js';
import type { KindChanges } from './apply-changes.js';
import { applyBoards } from './apply-boards.js';
import { applyChat } from './apply-chat.js';
import { applyMonitors } from './apply-monitors.js';
import { applyNotifyDestinations } from './apply-notify.js';
import { applyStatusPages } from './apply-status-pages.js';
import type { SuppressedSubscriber } from './apply-status-pages.js';
import { OTHER_CATALOG_SERVICE_IDS_FROM } from '../services/service-ids.js';
import { serviceHolder, serviceIdOf } from './setup-lookups.js';
import type { Path } from './apply-chat.js';
import type { CatalogServiceSpec, CompanySpec, Setup } from './setup.js';

export interface ApplyReport {
  companies: number;
  services: number;
  /** What the apply added, changed and removed, by kind; empty when the database held the setup already. */
  changes: KindChanges[];
  /** Config subscribers not signed up because they unsubscribed through a mail's link. */
  suppressed: SuppressedSubscriber[];
}

/**
 * Makes the database hold what the setup declares, in one transaction: creates
 * what is missing and updates what differs. It never deletes companies,
 * services, monitors, boards, incidents or API keys but the demo's, with
 * `demo: false` (see removeDemo); the lists that belong to
 * one declared item (monitored services, a status page's services and
 * subscribers, a company's notification destinations) are set to exactly
 * what is declared. Applying twice changes nothing.
 * A clash with existing data is an invalid_input error whose path names the entry.
 */
export async function applySetup(ctx: DomainContext, setup: Setup): Promise<ApplyReport> {
  const now = ctx.clock.now().getTime();
  const suppressed: SuppressedSubscriber[] = [];
  const changes = await ctx.write(async (trx) => {
    suppressed.length = 0;
    const before = await snapshotSetup(trx, setup);
    // First, so that the config's entries that name a demo service are refused (and nothing changes).
    if (!setup.demo) await removeDemo(ctx, trx, new Set(setup.companies.map((c) => c.name)));
    // Custom services first: a built-in catalog service whose fixed id one of them holds goes elsewhere.
    const companyIds: number[] = [];
    for (const [i, company] of setup.companies.entries()) {
      companyIds.push(await applyCompanyIdentity(trx, company, now, ['companies', i]));
    }
    for (const demo of setup.demo ? DEMO_SERVICES : []) {
      await upsertCatalogService(trx, { id: demo.id, urlname: demo.urlname, name: demo.name, status_page_url: null, poll: 'watched' }, demo.demo, now, [
        'services',
      ]);
    }
    const customUrlnames = new Set(setup.companies.flatMap((c) => c.custom_services.map((s) => s.urlname)));
    for (const [i, spec] of setup.services.entries()) {
      if (spec.builtIn && (customUrlnames.has(spec.urlname) || (await isCustomService(trx, spec.urlname)))) continue;
      const id = await upsertCatalogService(trx, spec, null, now, ['services', i, 'urlname']);
      await trx.deleteFrom('maintenance_windows').where('service_id', '=', id).execute();
      for (const w of spec.maintenance) {
        await trx.insertInto('maintenance_windows').values({ service_id: id, starts_at: w.starts_at.getTime(), ends_at: w.ends_at.getTime() }).execute();
      }
    }
    for (const [i, company] of setup.companies.entries()) {
      suppressed.push(...(await applyCompanyResources(trx, companyIds[i]!, company, now, ['companies', i], ctx.publicUrl)));
      await auditApply(ctx, trx, companyIds[i]!, company);
    }
    return changesBetween(before, await snapshotSetup(trx, setup));
  });
  // Plans and settings may have changed: authenticate afresh.
  ctx.processState.apiKeys.clear();
  return { companies: setup.companies.length, services: setup.services.length + (setup.demo ? DEMO_SERVICES.length : 0), changes, suppressed };
}

/**
 * One audit row per company whose declaration differs from the one applied
 * last (starts apply the same config again and again): what it declares, by
 * count, and a digest of the declaration (keys included, never shown).
 */
async function auditApply(ctx: DomainContext, trx: Kysely<Database>, companyId: number, spec: CompanySpec): Promise<void> {
  const digest = createHash('sha256').update(JSON.stringify(spec)).digest('hex');
  const last = await trx
    .selectFrom('audit_events')
    .select('changes')
    .where('company_id', '=', companyId)
    // A literal, so that the planners can use the index of these rows only (audit_events_config_applied).
    .where('action', '=', sql.lit('config.apply'))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const lastDigest = last ? (JSON.parse(last.changes) as { digest?: { to?: string } }).digest?.to : undefined;
  if (lastDigest === digest) return;
  await recordAudit(ctx, trx, {
    companyId,
    action: 'config.apply',
    targetType: 'company',
    targetId: companyId,
    changes: {
      digest: { ...(lastDigest ? { from: lastDigest } : {}), to: digest },
      plan: { to: spec.plan },
      api_keys: { to: spec.api_keys.length },
      custom_services: { to: spec.custom_services.length },
      custom_monitors: { to: spec.custom_monitors.length },
      boards: { to: spec.boards.length },
      status_pages: { to: spec.status_pages.length },
      notify: { to: spec.notify?.length ?? 0 },
    },
  });
}

const isCustomService = async (trx: Kysely<Database>, urlname: string): Promise<boolean> =>
  (await trx.selectFrom('services').select('id').where('urlname', '=', urlname).where('company_id', 'is not', null).executeTakeFirst()) !== undefined;

async function upsertCatalogService(
  trx: Kysely<Database>,
  spec: Pick<CatalogServiceSpec, 'id' | 'urlname' | 'name' | 'status_page_url' | 'feed' | 'poll'>,
  demo: 'cycle' | 'ok' | 'minor' | 'major' | null,
  now: number,
  path: Path,
): Promise<number> {
  const existing = await trx
    .selectFrom('services')
    .select(['id', 'company_id', 'feed_kind', 'feed_url', 'name', 'status_page_url', 'demo', 'poll_always'])
    .where('urlname', '=', spec.urlname)
    .executeTakeFirst();
  if (existing && existing.company_id !== null) {
    throw invalidInput(path, `urlname ${spec.urlname} is already taken by ${await serviceHolder(trx, { id: existing.id })}`);
  }
  const values = {
    name: spec.name,
    status_page_url: spec.status_page_url,
    demo,
    feed_kind: spec.feed?.kind ?? null,
    feed_url: spec.feed?.url ?? null,
    poll_always: spec.poll === 'always' ? 1 : 0,
  };
  let id: number;
  if (existing) {
    // Every start applies the catalog again: a row written anyway would be locked (queueing the changes of its
    // incidents on other replicas) for the whole start, for nothing.
    const same = (Object.keys(values) as (keyof typeof values)[]).every(
      (k) => existing[k] === values[k] || (k === 'poll_always' && Number(existing[k]) === values[k]),
    );
    if (!same) await trx.updateTable('services').set(values).where('id', '=', existing.id).execute();
    id = existing.id;
  } else {
    ({ id } = await trx
      .insertInto('services')
      .values({ id: await newCatalogServiceId(trx, spec.id), urlname: spec.urlname, company_id: null, created_at: now, ...values })
      .returning('id')
      .executeTakeFirstOrThrow());
  }
  const moved = existing !== undefined && (existing.feed_kind !== values.feed_kind || existing.feed_url !== values.feed_url);
  await applyFeed(trx, id, values.feed_kind !== null, moved);
  return id;
}

/**
 * A built-in service's fixed id; else (a service the config adds to the catalog, or a built-in
 * one whose fixed id a custom service already held when ids were given from one sequence) the
 * next free id from 900,000. Never an id a company may give its custom services.
 */
async function newCatalogServiceId(trx: Kysely<Database>, fixed: number | undefined): Promise<number> {
  if (fixed !== undefined) {
    const held = await trx.selectFrom('services').select('id').where('id', '=', fixed).executeTakeFirst();
    if (!held) return fixed;
  }
  const last = await trx
    .selectFrom('services')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('id', '>=', OTHER_CATALOG_SERVICE_IDS_FROM)
    .executeTakeFirst();
  return last?.id == null ? OTHER_CATALOG_SERVICE_IDS_FROM : Number(last.id) + 1;
}

/**
 * A service with a feed has its feed's state row, read at once; a feed that
 * moved to another address is read afresh (and its first read is silent
 * again). A service without a feed keeps no state, nor the feed's status.
 */
async function applyFeed(trx: Kysely<Database>, serviceId: number, hasFeed: boolean, moved: boolean): Promise<void> {
  if (!hasFeed) {
    await trx.deleteFrom('vendor_feeds').where('service_id', '=', serviceId).execute();
    return;
  }
  if (moved) await trx.deleteFrom('vendor_feeds').where('service_id', '=', serviceId).execute();
  await trx
    .insertInto('vendor_feeds')
    .values({ service_id: serviceId })
    .onConflict((oc) => oc.column('service_id').doNothing())
    .execute();
}

/** The company, its API keys and its custom services; returns its id. */
async function applyCompanyIdentity(trx: Kysely<Database>, spec: CompanySpec, now: number, path: Path): Promise<number> {
  const notifyOn = JSON.stringify(spec.notify_on);
  const quorum = spec.regions?.quorum ?? 1;
  const incidentChannels = spec.chat?.incident_channels ? 1 : 0;
  const companyId = (
    await trx
      .insertInto('companies')
      .values({ name: spec.name, plan: spec.plan, notify_on: notifyOn, region_quorum: quorum, incident_channels: incidentChannels, created_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet({ plan: spec.plan, notify_on: notifyOn, region_quorum: quorum, incident_channels: incidentChannels }))
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;

  for (const [i, key] of spec.api_keys.entries()) {
    const hash = hashApiKey(key);
    const existing = await trx.selectFrom('api_keys').select('company_id').where('key_hash', '=', hash).executeTakeFirst();
    if (existing && existing.company_id !== companyId) {
      throw invalidInput([...path, 'api_keys', i], 'this API key already belongs to another company');
    }
    if (!existing) {
      await trx.insertInto('api_keys').values({ company_id: companyId, key_hash: hash, label: 'config', created_at: now }).execute();
    }
  }

  for (const [i, s] of spec.custom_services.entries()) {
    const at: Path = [...path, 'custom_services', i];
    const byId = await trx.selectFrom('services').select(['company_id']).where('id', '=', s.id).executeTakeFirst();
    if (byId && byId.company_id !== companyId) {
      throw invalidInput([...at, 'id'], `service id ${s.id} is already taken by ${await serviceHolder(trx, { id: s.id })}`);
    }
    const byName = await trx.selectFrom('services').select('id').where('urlname', '=', s.urlname).executeTakeFirst();
    if (byName && byName.id !== s.id) {
      throw invalidInput([...at, 'urlname'], `urlname ${s.urlname} is already taken by ${await serviceHolder(trx, { id: byName.id })}`);
    }
    await trx
      .insertInto('services')
      .values({ id: s.id, urlname: s.urlname, name: s.name, status_page_url: s.status_page_url, company_id: companyId, demo: null, created_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ urlname: s.urlname, name: s.name, status_page_url: s.status_page_url }))
      .execute();
  }
  await dialectOf(trx).afterGivenIds(trx, 'services');
  await trx
    .updateTable('companies')
    .set({ alert_service_label: spec.alerts?.service_label ?? DEFAULT_SERVICE_LABEL, alert_default_service_id: spec.alerts?.default_service_id ?? null })
    .where('id', '=', companyId)
    .execute();

  return companyId;
}

/** Everything else the company declares, which may refer to catalog services. */
async function applyCompanyResources(
  trx: Kysely<Database>,
  companyId: number,
  spec: CompanySpec,
  now: number,
  path: Path,
  publicUrl: string,
): Promise<SuppressedSubscriber[]> {
  await trx.deleteFrom('company_monitored_services').where('company_id', '=', companyId).execute();
  for (const [i, urlname] of spec.monitored_services.entries()) {
    const serviceId = await serviceIdOf(trx, urlname, companyId, [...path, 'monitored_services', i]);
    await trx
      .insertInto('company_monitored_services')
      .values({ company_id: companyId, service_id: serviceId })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  await applyMonitors(trx, companyId, spec.custom_monitors, now, [...path, 'custom_monitors']);
  await applyBoards(trx, companyId, spec.boards, now, [...path, 'boards']);

  const suppressed = await applyStatusPages(trx, { companyId, pages: spec.status_pages, publicUrl, now, path });

  await applyChat(trx, companyId, spec, now, path);
  await applyNotifyDestinations(trx, companyId, spec.notify ?? [], now);
  return suppressed;
}
