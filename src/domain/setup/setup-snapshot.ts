import type { Kysely, Selectable } from 'kysely';
import type { CompaniesTable, Database } from '../../db/schema.js';
import { DEMO_COMPANY } from '../demo/demo-company.js';
import type { Setup } from './setup.js';

/** The kinds an apply manages, in the order the summary tells them. */
export const KINDS = {
  companies: ['company', 'companies'],
  apiKeys: ['API key', 'API keys'],
  services: ['service', 'services'],
  monitors: ['monitor', 'monitors'],
  boards: ['board', 'boards'],
  statusPages: ['status page', 'status pages'],
  subscribers: ['subscriber', 'subscribers'],
  chatLinks: ['chat workspace', 'chat workspaces'],
  channelSubscriptions: ['channel subscription', 'channel subscriptions'],
  notifyDestinations: ['notification destination', 'notification destinations'],
} as const satisfies Record<string, readonly [string, string]>;

export type Kind = keyof typeof KINDS;

/** Per kind: each item by its identity, with what apply may change of it (times left out). */
export type SetupSnapshot = Record<Kind, Map<string, string>>;

const byKey = <R>(rows: readonly R[], key: (r: R) => string, value: (r: R) => unknown): Map<string, string> =>
  new Map(rows.map((r) => [key(r), JSON.stringify(value(r))]));

/** Rows of `rows` grouped under `key`, each group as sorted values: a list that belongs to one item. */
function listsOf<R>(rows: readonly R[], key: (r: R) => string | number, value: (r: R) => unknown): Map<string, string[]> {
  const lists = new Map<string, string[]>();
  for (const r of rows) {
    const k = String(key(r));
    lists.set(k, [...(lists.get(k) ?? []), JSON.stringify(value(r))]);
  }
  for (const list of lists.values()) list.sort();
  return lists;
}

type Ids = readonly number[];

/**
 * What the database holds of what `setup` declares (its companies, and every
 * catalog service), read in the apply's transaction: compared before and after,
 * it tells what the apply changed.
 */
export async function snapshotSetup(trx: Kysely<Database>, setup: Setup): Promise<SetupSnapshot> {
  // With `demo: false`, the demo company is what apply removes: it is told among the changes.
  const names = [...setup.companies.map((c) => c.name), ...(setup.demo ? [] : [DEMO_COMPANY])];
  const companies = names.length
    ? await trx
        .selectFrom('companies')
        .select(['id', 'name', 'plan', 'notify_on', 'incident_channels', 'region_quorum', 'alert_service_label', 'alert_default_service_id'])
        .where('name', 'in', names)
        .execute()
    : [];
  const ids = companies.length ? companies.map((c) => c.id) : [-1];
  const parts = await Promise.all([
    companiesSnapshot(trx, companies, ids),
    servicesSnapshot(trx, ids),
    monitorsSnapshot(trx, ids),
    boardsSnapshot(trx, ids),
    pagesSnapshot(trx, ids),
    chatSnapshot(trx, ids),
  ]);
  return Object.assign({}, ...parts) as SetupSnapshot;
}

type CompanyRow = Pick<
  Selectable<CompaniesTable>,
  'id' | 'name' | 'plan' | 'notify_on' | 'incident_channels' | 'region_quorum' | 'alert_service_label' | 'alert_default_service_id'
>;

async function companiesSnapshot(trx: Kysely<Database>, companies: readonly CompanyRow[], ids: Ids): Promise<Pick<SetupSnapshot, 'companies' | 'apiKeys'>> {
  const [monitored, admins, keys] = await Promise.all([
    trx.selectFrom('company_monitored_services').select(['company_id', 'service_id']).where('company_id', 'in', ids).execute(),
    trx.selectFrom('chat_admins').select(['company_id', 'platform', 'user_id']).where('company_id', 'in', ids).execute(),
    trx.selectFrom('api_keys').select(['id', 'company_id', 'label']).where('company_id', 'in', ids).execute(),
  ]);
  const monitoredOf = listsOf(
    monitored,
    (r) => r.company_id,
    (r) => r.service_id,
  );
  const adminsOf = listsOf(
    admins,
    (r) => r.company_id,
    (r) => [r.platform, r.user_id],
  );
  return {
    companies: byKey(
      companies,
      (c) => c.name,
      (c) => [
        c.plan,
        c.notify_on,
        Number(c.incident_channels),
        Number(c.region_quorum),
        monitoredOf.get(String(c.id)),
        adminsOf.get(String(c.id)),
        c.alert_service_label,
        c.alert_default_service_id,
      ],
    ),
    apiKeys: byKey(
      keys,
      (k) => String(k.id),
      (k) => [k.company_id, k.label],
    ),
  };
}

async function servicesSnapshot(trx: Kysely<Database>, ids: Ids): Promise<Pick<SetupSnapshot, 'services'>> {
  const [services, windows] = await Promise.all([
    trx
      .selectFrom('services')
      .select(['id', 'urlname', 'name', 'status_page_url', 'company_id', 'demo', 'feed_kind', 'feed_url', 'poll_always'])
      .where((eb) => eb.or([eb('company_id', 'is', null), eb('company_id', 'in', ids)]))
      .execute(),
    trx.selectFrom('maintenance_windows').select(['service_id', 'starts_at', 'ends_at']).execute(),
  ]);
  const windowsOf = listsOf(
    windows,
    (r) => r.service_id,
    (r) => [r.starts_at, r.ends_at],
  );
  return {
    services: byKey(
      services,
      (s) => String(s.id),
      (s) => [s, windowsOf.get(String(s.id))],
    ),
  };
}

async function monitorsSnapshot(trx: Kysely<Database>, ids: Ids): Promise<Pick<SetupSnapshot, 'monitors'>> {
  const monitors = await trx
    .selectFrom('custom_monitors')
    .select([
      'id',
      'company_id',
      'name',
      'url',
      'probe_type',
      'keyword',
      'interval_seconds',
      'dns_record',
      'dns_expect',
      'dns_server',
      'days_before_expiry',
      'grace_seconds',
      'service_id',
    ])
    .where('company_id', 'in', ids)
    .execute();
  return {
    monitors: byKey(
      monitors,
      (m) => String(m.id),
      (m) => m,
    ),
  };
}

async function boardsSnapshot(trx: Kysely<Database>, ids: Ids): Promise<Pick<SetupSnapshot, 'boards'>> {
  const [boards, boardServices] = await Promise.all([
    trx.selectFrom('boards').select(['id', 'company_id', 'name', 'urlname']).where('company_id', 'in', ids).execute(),
    trx
      .selectFrom('board_services')
      .innerJoin('boards', 'boards.id', 'board_services.board_id')
      .select(['board_id', 'service_id', 'tags'])
      .where('boards.company_id', 'in', ids)
      .execute(),
  ]);
  const boardServicesOf = listsOf(
    boardServices,
    (r) => r.board_id,
    (r) => [r.service_id, r.tags],
  );
  return {
    boards: byKey(
      boards,
      (b) => b.id,
      (b) => [b, boardServicesOf.get(b.id)],
    ),
  };
}

async function pagesSnapshot(trx: Kysely<Database>, ids: Ids): Promise<Pick<SetupSnapshot, 'statusPages' | 'subscribers'>> {
  const [pages, pageServices, hooks, emails] = await Promise.all([
    trx
      .selectFrom('status_pages')
      .select(['id', 'company_id', 'name', 'slug', 'url', 'host', 'third_party', 'monitors'])
      .where('company_id', 'in', ids)
      .execute(),
    trx
      .selectFrom('status_page_services')
      .innerJoin('status_pages', 'status_pages.id', 'status_page_services.status_page_id')
      .select(['status_page_id', 'service_id'])
      .where('status_pages.company_id', 'in', ids)
      .execute(),
    trx
      .selectFrom('subscribers')
      .innerJoin('status_pages', 'status_pages.id', 'subscribers.status_page_id')
      .select(['status_page_id', 'target', 'secret'])
      .where('status_pages.company_id', 'in', ids)
      .execute(),
    // Addresses that signed up on a page are the visitors', not the config's.
    trx
      .selectFrom('email_subscribers')
      .innerJoin('status_pages', 'status_pages.id', 'email_subscribers.status_page_id')
      .select(['status_page_id', 'email', 'state'])
      .where('status_pages.company_id', 'in', ids)
      .where('origin', '=', 'config')
      .execute(),
  ]);
  const pageServicesOf = listsOf(
    pageServices,
    (r) => r.status_page_id,
    (r) => r.service_id,
  );
  return {
    statusPages: byKey(
      pages,
      (p) => String(p.id),
      (p) => [p, pageServicesOf.get(String(p.id))],
    ),
    subscribers: new Map([
      ...byKey(
        hooks,
        (h) => `${h.status_page_id}:webhook:${h.target}`,
        (h) => h.secret,
      ),
      ...byKey(
        emails,
        (e) => `${e.status_page_id}:email:${e.email}`,
        (e) => e.state,
      ),
    ]),
  };
}

async function chatSnapshot(trx: Kysely<Database>, ids: Ids): Promise<Pick<SetupSnapshot, 'chatLinks' | 'channelSubscriptions' | 'notifyDestinations'>> {
  const [links, channels, destinations] = await Promise.all([
    trx.selectFrom('chat_links').select(['platform', 'workspace_id', 'company_id']).where('company_id', 'in', ids).execute(),
    trx
      .selectFrom('channel_subscriptions')
      .select(['platform', 'workspace_id', 'channel_id', 'target_key', 'company_id', 'schedule', 'timezone', 'only_on_change', 'edit_in_place'])
      .where('company_id', 'in', ids)
      .execute(),
    // Their keys only: a snapshot holds no secret.
    trx.selectFrom('notify_destinations').select(['company_id', 'kind', 'config_key']).where('company_id', 'in', ids).execute(),
  ]);
  return {
    chatLinks: byKey(
      links,
      (l) => `${l.platform}:${l.workspace_id}`,
      (l) => l.company_id,
    ),
    channelSubscriptions: byKey(
      channels,
      (c) => `${c.platform}:${c.workspace_id}:${c.channel_id}:${c.target_key}`,
      (c) => c,
    ),
    notifyDestinations: byKey(
      destinations,
      (d) => `${d.company_id}:${d.config_key}`,
      (d) => d.kind,
    ),
  };
}
