import { sql } from 'kysely';
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { dialectOf, jsonRows, serviceLockingRead, lockService, rowsOf } from '../../../db/dialect.js';
import type { JsonRows } from '../../../db/dialect.js';
import { prepared } from '../../../db/prepared.js';
import type { Database, IncidentsTable, ServicesTable } from '../../../db/schema.js';
import type { ChannelRef } from '../../model/channel.js';
import type { Company } from '../../model/company.js';
import { parseNotifyOn } from '../../model/company.js';
import { recipientColumns, recipientsOf } from '../../notifications/change-recipients.js';
import type { ChangeRecipients, RecipientColumns } from '../../notifications/change-recipients.js';
import { destinationsOfCompanyQuery } from '../../notifications/notify-destination.js';
import type { DestinationRow } from '../../notifications/notify-destination.js';
import { statusFactColumns } from '../../services/service-status.js';
import type { StatusFacts } from '../../services/service-status.js';
import { linkedPagesQuery } from '../../status-pages/status-pages.js';
import type { LinkedPage } from '../../status-pages/status-pages.js';
import type { IncidentRow, StoredUpdate } from '../incident-repository.js';
import type { StoredIncident, WatchedMonitor } from './incident-change.js';

/*
 * The scope of a change: the service whose incidents change, locked, with
 * every fact its consequences are told from (its status facts, its pages,
 * everyone to tell), read in the statement that takes the lock.
 */

type ServiceColumns = Pick<Selectable<ServicesTable>, 'id' | 'name' | 'urlname' | 'company_id' | 'status_page_url'>;

/** A service locked for a change, with what the change is told from. */
export interface ChangeScope {
  service: ServiceColumns;
  /** The owner of a custom service (whose settings say which events its subscribers hear of); null for a catalog service. */
  company: Company | null;
  /** The service's status facts, without the incident `except` (see statusWith). */
  facts: StatusFacts;
  except: number | null;
  /**
   * The facts were read by the statement that took the lock, which may see
   * the database as it was before it waited for it (PostgreSQL): the
   * consequences that depend on them are written only if they still hold.
   */
  guarded: boolean;
  /** Read for a change of one incident: the status after it follows from the facts (else it is read again). */
  single: boolean;
  /** The id a new incident takes, where the engine reserves it with the lock (see Dialect.reservedId). */
  reservedId: number | null;
  /** The service's first linked status page (its public page), if any. */
  page: LinkedPage | undefined;
  recipients: ChangeRecipients;
}

type OwnerColumns = { owner_name: string | null; owner_plan: Company['plan'] | null; owner_notify_on: string | null };
type FactColumns = StatusFacts & RecipientColumns & { pages: JsonRows<LinkedPage> } & ServiceColumns & OwnerColumns & { next_id?: number | null };

/** The scope's columns of the service in scope (`services.id`), its owner joined as `owner`. */
const scopeColumns = (db: Kysely<Database>, eb: ExpressionBuilder<Database, 'services'>, now: number, except: number | null) => [
  ...statusFactColumns(eb, now, except),
  jsonRows(db, linkedPagesQuery(db, sql.ref<number>('services.id')), ['id', 'name', 'slug', 'url'], 'id').as('pages'),
  ...recipientColumns(db, sql.ref<number>('services.company_id')),
];
const SERVICE_COLUMNS = [
  'services.id',
  'services.name',
  'services.urlname',
  'services.company_id',
  'services.status_page_url',
  'owner.name as owner_name',
  'owner.plan as owner_plan',
  'owner.notify_on as owner_notify_on',
] as const;

const scopeRead = (db: Kysely<Database>, p: Record<'service' | 'now' | 'except', never>) =>
  db
    .selectFrom('services')
    .leftJoin('companies as owner', 'owner.id', 'services.company_id')
    .select(SERVICE_COLUMNS)
    .select((eb) => scopeColumns(db, eb as never, p.now, p.except))
    .where('services.id', '=', p.service);

/** The scope read with the statement that takes the lock (see serviceLockingRead). */
const lockedScope = serviceLockingRead<'service' | 'now' | 'except', FactColumns>((db, p) => scopeRead(db, p) as never);
/** The scope of a new incident, with the id it takes where the engine reserves one (see Dialect.reservedId). */
const lockedScopeForNew = serviceLockingRead<'service' | 'now' | 'except', FactColumns>((db, p) => {
  const read = scopeRead(db, p);
  const reserved = dialectOf(db).reservedId('incidents');
  return (reserved ? read.select(reserved.as('next_id')) : read) as never;
});
/** The scope read once the lock is held. */
const scopeAfterLock = prepared<'service' | 'now' | 'except', FactColumns>((db, p) => scopeRead(db, p) as never);

const ownerOf = (row: FactColumns): Company | null =>
  row.company_id === null || row.owner_name === null
    ? null
    : { id: row.company_id, name: row.owner_name, plan: row.owner_plan!, notifyOn: parseNotifyOn(row.owner_notify_on ?? '[]') };

const scopeOf = (row: FactColumns, except: number | null, guarded: boolean, single: boolean): ChangeScope => ({
  reservedId: row.next_id == null ? null : Number(row.next_id),
  service: { id: row.id, name: row.name, urlname: row.urlname, company_id: row.company_id, status_page_url: row.status_page_url },
  company: ownerOf(row),
  facts: { indicator: row.indicator, maintenance: row.maintenance, major: row.major, minor: row.minor },
  except,
  guarded,
  single,
  page: rowsOf(row.pages)[0],
  recipients: recipientsOf(row, row.company_id ?? 0),
});

/**
 * Locks a service for a change and reads its scope in one statement: for a
 * change of one incident (`except`: the one, when it exists), made while the
 * caller waits. `company`: the service must be this company's custom service
 * (undefined otherwise).
 */
export async function lockScope(
  trx: Kysely<Database>,
  serviceId: number,
  company: Company,
  now: number,
  except: number | null,
): Promise<ChangeScope | undefined> {
  const row = await (except === null ? lockedScopeForNew : lockedScope)(trx, { service: serviceId, now, except });
  if (!row || row.company_id !== company.id) return undefined;
  return scopeOf(row, except, dialectOf(trx).lockingReadsMayPredateLock, true);
}

/**
 * Locks a service for changes of any number of its incidents, then reads its
 * scope: for the jobs and reports that change a service's incidents in bulk.
 */
export async function lockScopeForMany(trx: Kysely<Database>, serviceId: number, now: number): Promise<ChangeScope | undefined> {
  await lockService(trx, serviceId);
  const [row] = await scopeAfterLock(trx, { service: serviceId, now, except: null });
  return row ? scopeOf(row, null, false, false) : undefined;
}

const INCIDENT_COLUMNS = [
  'incidents.id',
  'incidents.service_id',
  'incidents.title',
  'incidents.status',
  'incidents.description',
  'incidents.resolved',
  'incidents.url',
  'incidents.user_generated',
  'incidents.severity_from_provider',
  'incidents.components',
  'incidents.external_key',
  'incidents.created_at',
  'incidents.updated_at',
  'incidents.resolved_at',
] as const;

type IncidentScopeRow = FactColumns & {
  service_id: number;
  incident: JsonRows<Selectable<IncidentsTable>>;
  updates: JsonRows<StoredUpdate & { id: number }>;
};

/** An incident's service, locked, with its scope and the incident as stored, in one statement. */
const lockedIncidentScope = serviceLockingRead<'incident' | 'now', IncidentScopeRow>(
  (db, p) =>
    db
      .selectFrom('incidents')
      .innerJoin('services', 'services.id', 'incidents.service_id')
      .leftJoin('companies as owner', 'owner.id', 'services.company_id')
      .select([...SERVICE_COLUMNS, 'incidents.service_id'])
      .select((eb) => [
        ...scopeColumns(db, eb as never, p.now, p.incident as never),
        jsonRows(
          db,
          eb
            .selectFrom('incidents as i')
            .select(INCIDENT_COLUMNS.map((c) => c.replace('incidents.', 'i.')) as never)
            .whereRef('i.id', '=', 'incidents.id'),
          INCIDENT_COLUMNS.map((c) => c.slice('incidents.'.length)) as never,
          'id' as never,
        ).as('incident'),
        jsonRows(
          db,
          eb
            .selectFrom('incident_updates')
            .select(['incident_updates.id', 'incident_updates.stage', 'incident_updates.description', 'incident_updates.created_at'])
            .whereRef('incident_updates.incident_id', '=', 'incidents.id'),
          ['id', 'stage', 'description', 'created_at'],
          'id',
        ).as('updates'),
      ])
      .where('incidents.id', '=', p.incident) as never,
);

/**
 * Locks an incident's service for a change of it, and reads its scope and the
 * incident as stored, with its timeline; check whose service it is before
 * changing anything.
 */
export async function lockIncidentScope(
  trx: Kysely<Database>,
  incidentId: number,
  now: number,
): Promise<{ scope: ChangeScope; stored: StoredIncident & { updates: StoredUpdate[] } } | undefined> {
  const row = await lockedIncidentScope(trx, { incident: incidentId, now });
  if (!row) return undefined;
  const [incident] = rowsOf(row.incident);
  if (!incident) return undefined;
  const updates = rowsOf(row.updates).map((u) => ({ stage: u.stage, description: u.description, created_at: u.created_at }));
  const scope = scopeOf(row as FactColumns, incidentId, dialectOf(trx).lockingReadsMayPredateLock, true);
  return { scope, stored: { row: incident, updates } };
}

/** The incident row as reads give it, with its service's columns. */
export const incidentRowOf = (row: Selectable<IncidentsTable>, { service, page }: Pick<ChangeScope, 'service' | 'page'>): IncidentRow => ({
  id: row.id,
  url: row.url,
  title: row.title,
  description: row.description,
  status: row.status,
  resolved: row.resolved,
  created_at: row.created_at,
  resolved_at: row.resolved_at,
  updated_at: row.updated_at,
  service_id: row.service_id,
  user_generated: row.user_generated,
  severity_from_provider: row.severity_from_provider,
  components: row.components,
  service_name: service.name,
  service_urlname: service.urlname,
  service_company_id: service.company_id,
  service_status_page_url: service.status_page_url,
  service_page_url: page?.url ?? null,
});

/** Everyone a change of a monitor's incidents may be told to. */
export interface MonitorRecipients {
  /** The channels following the monitor. */
  channels: ChannelRef[];
  /** The company's paging and chat destinations; read only where there is an incident to tell them of. */
  destinations: () => Promise<DestinationRow[]>;
}

/** The recipients of a change of a monitor's incidents. */
export async function monitorRecipients(trx: Kysely<Database>, monitor: WatchedMonitor): Promise<MonitorRecipients> {
  const rows = await trx
    .selectFrom('channel_subscriptions')
    .select(['platform', 'workspace_id', 'channel_id'])
    .where('kind', '=', 'monitor')
    .where('monitor_id', '=', monitor.id)
    .orderBy('id')
    .execute();
  return {
    channels: rows.map((r) => ({ platform: r.platform, workspaceId: r.workspace_id, channelId: r.channel_id })),
    destinations: () => destinationsOfCompanyQuery(trx, monitor.companyId).orderBy('notify_destinations.id').execute(),
  };
}
