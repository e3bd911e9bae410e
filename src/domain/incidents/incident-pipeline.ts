import { sql } from 'kysely';
import type { CompiledQuery, ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { dialectOf, jsonRows, serviceLockingRead, lockService, rowsOf, batchWrites } from '../../db/dialect.js';
import type { JsonRows } from '../../db/dialect.js';
import { prepared } from '../../db/prepared.js';
import type { Database, IncidentsTable, ServicesTable } from '../../db/schema.js';
import { auditWrite, changesBetween, created, removed } from '../audit/audit-trail.js';
import type { AuditEntry } from '../audit/audit-trail.js';
import type { Company } from '../model/company.js';
import { parseNotifyOn } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { incidentChatRoles, roomSummaryRow } from '../chat/incident-chat-roles.js';
import { openRoomWhenMajor } from '../chat/incident-room.js';
import type { IncidentChatRoles } from '../chat/incident-chat-roles.js';
import { incidentAnnouncementRows, statusChangeRows } from '../notifications/channel-outbox.js';
import { recipientColumns, recipientsOf } from '../notifications/change-recipients.js';
import type { ChangeRecipients, RecipientColumns } from '../notifications/change-recipients.js';
import { guardedOutboxWrites, outboxWrites, queuable } from '../notifications/enqueue.js';
import type { OutboxRow } from '../notifications/enqueue.js';
import { destinationRows } from '../notifications/notify-destination.js';
import { incidentNotificationRows } from '../notifications/outbox.js';
import type { ServiceStatus } from '../model/service.js';
import { statusFactColumns, statusFactsAre, statusFactsOf, statusOf, statusWith } from '../services/service-status.js';
import type { StatusFacts } from '../services/service-status.js';
import { linkedPagesQuery, pagesShowChange } from '../status-pages/status-pages.js';
import type { LinkedPage } from '../status-pages/status-pages.js';
import type { Incident, IncidentEvent } from '../model/incident.js';
import { toIncident, updatesOfIncident } from './incident-repository.js';
import type { IncidentRow, StoredUpdate } from './incident-repository.js';
import { restatedMove, updateWrites } from './update-writes.js';
import type { StatusMove } from './update-writes.js';

/*
 * Every change of an incident goes through `applyIncidentChanges`, whoever
 * makes it: a company through the API or chat, a vendor's feed, users'
 * reports, the demo, alerts. The source decides what the incident becomes; the
 * pipeline stores it and makes every consequence of it, the same for all:
 * the stored incident and its timeline, the service's change on its status
 * pages, the outbox rows for each destination the change concerns (webhook
 * and email subscribers of those pages, the company's paging and chat
 * destinations, the channels following the company's incidents or the
 * service, a status-change message where the service's status moved), and
 * the audit row.
 */

/** Who made a change; it decides nothing of its consequences but how chat labels the incident. */
export type ChangeSource = 'api' | 'chat' | 'vendor' | 'users' | 'demo' | 'alerts';

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

/** An incident as stored, and its timeline when the source read it (null: read back where needed). */
export interface StoredIncident {
  row: Selectable<IncidentsTable>;
  updates: StoredUpdate[] | null;
}

/** What a source makes an incident: every stored field but its id and service. */
export type IncidentDraft = Omit<Selectable<IncidentsTable>, 'id' | 'service_id'>;

export interface ProposedChange {
  /** As stored; null for a new incident. */
  before: StoredIncident | null;
  /** Null to delete it. */
  after: IncidentDraft | null;
  /** Updates this change posts, oldest first; with `rewriteTimeline`, the whole timeline. */
  posted: StoredUpdate[];
  rewriteTimeline?: boolean;
  /** Stored but told to nobody: a vendor's edit of an incident that is over, a description that counts reports anew. */
  quiet?: boolean;
  /**
   * What was so before anyone could see it change: a feed's incidents at its
   * first read, the outages the demo writes ahead. Stored, told to nobody,
   * and left out of the audit trail, which says who changed what.
   */
  seeded?: boolean;
}

/** A change as made: the incident as it now reads. */
export interface MadeChange {
  event: IncidentEvent;
  incident: Incident;
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

const eventOf = (change: ProposedChange): IncidentEvent => {
  if (!change.before) return 'created';
  if (!change.after) return 'deleted';
  if (change.before.row.resolved === 0 && change.after.resolved === 1) return 'resolved';
  if (change.before.row.resolved === 1 && change.after.resolved === 0) return 'reopened';
  return 'updated';
};

type DraftParams = keyof IncidentDraft | 'service';
const draftValues = (p: Record<DraftParams, never>) => ({
  service_id: p.service,
  title: p.title,
  status: p.status,
  description: p.description,
  resolved: p.resolved,
  url: p.url,
  user_generated: p.user_generated,
  severity_from_provider: p.severity_from_provider,
  components: p.components,
  external_key: p.external_key,
  created_at: p.created_at,
  updated_at: p.updated_at,
  resolved_at: p.resolved_at,
});
const insertNew = prepared<DraftParams, Selectable<IncidentsTable>>((db, p) => db.insertInto('incidents').values(draftValues(p)).returningAll());
const insertWithId = prepared<DraftParams | 'id', never>((db, p) => db.insertInto('incidents').values({ id: p.id, ...draftValues(p) }));
/** An incident with an external key is written once, also by processes writing it at the same time. */
const insertKeyed = prepared<DraftParams, Selectable<IncidentsTable>>((db, p) =>
  db
    .insertInto('incidents')
    .values(draftValues(p))
    .onConflict((oc) => oc.column('external_key').where('external_key', 'is not', null).doNothing())
    .returningAll(),
);

const insertIncident = async (db: Kysely<Database>, serviceId: number, draft: IncidentDraft) =>
  (await (draft.external_key === null ? insertNew : insertKeyed)(db, { ...draft, service: serviceId }))[0];

/** The stored fields of a draft, without its service (which a change never moves). */
const changedValues = (p: Record<DraftParams, never>) => {
  const { service_id: _, ...values } = draftValues(p);
  return values;
};

const updateIncident = prepared<keyof IncidentDraft | 'id', Selectable<IncidentsTable>>((db, p) =>
  db
    .updateTable('incidents')
    .set(changedValues(p as never))
    .where('id', '=', p.id)
    .returningAll(),
);

const updateIncidentRow = prepared<keyof IncidentDraft | 'id', never>((db, p) =>
  db
    .updateTable('incidents')
    .set(changedValues(p as never))
    .where('id', '=', p.id),
);

const deleteIncident = prepared<'id', never>((db, p) => db.deleteFrom('incidents').where('id', '=', p.id));
const clearTimeline = prepared<'id', never>((db, p) => db.deleteFrom('incident_updates').where('incident_id', '=', p.id));

/** The fields of an incident's state that its audit rows show. */
const auditedState = (row: Pick<IncidentDraft, 'title' | 'status' | 'resolved'>) => ({
  title: row.title,
  status: row.status,
  resolved: row.resolved === 1,
});

function auditEntry(scope: ChangeScope, event: IncidentEvent, id: number, change: ProposedChange, stored: Selectable<IncidentsTable> | null): AuditEntry {
  const companyId = scope.service.company_id;
  if (event === 'created') {
    const row = stored!;
    return {
      companyId,
      action: 'incident.create',
      targetType: 'incident',
      targetId: id,
      changes: created({ service_id: row.service_id, ...auditedState(row), description: row.description }),
    };
  }
  const before = change.before!.row;
  if (event === 'deleted') {
    return {
      companyId,
      action: 'incident.delete',
      targetType: 'incident',
      targetId: id,
      changes: removed({ service_id: before.service_id, ...auditedState(before) }),
    };
  }
  const last = change.posted.at(-1);
  return {
    companyId,
    action: 'incident.update',
    targetType: 'incident',
    targetId: id,
    changes: {
      ...changesBetween(auditedState(before), auditedState(stored!)),
      ...(last ? { update: { to: { stage: last.stage, description: last.description } } } : {}),
    },
  };
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

type Guard = 'service' | 'now' | 'except' | 'indicator' | 'maintenance' | 'major' | 'minor';

/** Whether the service's facts are still those of the scope: the part named `read` of the consequences' writes (see batchWrites). */
const factsUnchanged = prepared<Guard, { held: boolean }>((db, p) =>
  db.selectNoFrom((eb) =>
    sql<boolean>`${statusFactsAre(eb, p.service, p.now, p.except, { indicator: p.indicator, maintenance: p.maintenance, major: p.major, minor: p.minor })}`.as(
      'held',
    ),
  ),
);
const guardedOutbox = guardedOutboxWrites(sql<boolean>`(select held from read)`);

/**
 * Makes the changes of a service's incidents, which `scope` locked, with
 * every consequence, in the caller's transaction. `statusToldBefore`: the
 * status the service's followers last heard of, when not the one the scope
 * read (the demo's, which reads have moved on since). Returns the changes
 * as made, in order; a new incident whose external key is taken is left
 * out (another process wrote it).
 */
export async function applyIncidentChanges(
  ctx: DomainContext,
  trx: Kysely<Database>,
  scope: ChangeScope,
  changes: readonly ProposedChange[],
  options: {
    source: ChangeSource;
    now: number;
    statusToldBefore?: ServiceStatus;
    /** What a status-change message gives as its cause; by default the title of the first open incident changed, else of the last. */
    cause?: (after: ServiceStatus) => string | null;
    /** False: a move of the service's status is told to nobody (a vendor's first read). */
    tellStatus?: boolean;
  },
): Promise<MadeChange[]> {
  const { now, source } = options;
  const { service } = scope;
  const made: (MadeChange & {
    quiet: boolean;
    posted: boolean;
    /** The updates it posted. */
    updates: StoredUpdate[];
    before: Selectable<IncidentsTable> | null;
    after: Selectable<IncidentsTable> | null;
  })[] = [];
  // Writes that nothing reads back go out with the consequences, in one batch (see batchWrites).
  const writes: CompiledQuery[] = [];
  for (const proposed of changes) {
    const change = storable(proposed);
    const event = eventOf(change);
    const quiet = change.quiet === true || change.seeded === true;
    const stored = await store(trx, scope, change, writes);
    if (stored === undefined) continue;
    const id = stored?.id ?? change.before!.row.id;
    const updates = quiet ? [] : await timelineOf(trx, id, change);
    const audit = change.seeded ? null : auditWrite(ctx, trx, auditEntry(scope, event, id, change, stored));
    if (audit) writes.push(audit);
    const row = incidentRowOf(stored ?? change.before!.row, scope);
    const incident = toIncident(ctx, row, updates, now);
    made.push({
      event,
      incident,
      quiet,
      posted: change.posted.length > 0,
      updates: change.posted,
      before: change.before?.row ?? null,
      after: stored,
    });
  }
  // A scope of many may see the service's status move with no incident changed (a vendor's stated status).
  if (made.length === 0 && scope.single) return [];
  // The lead and room of the company's own incidents (see domain/chat/incident-chat-roles.ts).
  const roles =
    scope.company === null
      ? new Map<number, IncidentChatRoles>()
      : await incidentChatRoles(
          trx,
          scope.company.id,
          made.filter((c) => !c.quiet && c.before !== null && c.after !== null).map((c) => c.incident.id),
        );

  // The service's status before and after: from the facts read without the one incident changed, or read again.
  const single = scope.single && made.length === 1;
  const statusMove = (facts: StatusFacts | undefined) => ({
    before: options.statusToldBefore ?? statusWith(facts, single ? made[0]!.before : null, now),
    after: statusWith(facts, single ? made[0]!.after : null, now),
  });
  // Many changes (a job's): their writes go one by one, as one statement of them all would be a text of its own each time.
  if (!single) for (const write of writes.splice(0)) await trx.executeQuery(write);
  const move = single ? statusMove(scope.facts) : { before: statusMove(scope.facts).before, after: await statusOf(trx, service.id, now) };
  // What the change did to the service's status, which the last update of each change records (see update-writes.ts). A job's
  // changes were written together (their incident rows as they were stored): each records the move of them all, as read.
  const recorded: StatusMove = { before: statusWith(scope.facts, single ? made[0]!.before : null, now), after: move.after };
  for (const change of made) writes.push(...updateWrites(trx, change.incident.id, change.updates, recorded));
  const everyMessageFor = ({ before, after }: { before: ServiceStatus; after: ServiceStatus }) => {
    const rows: { row: OutboxRow; guarded: boolean }[] = [];
    for (const change of made) {
      if (change.quiet) continue;
      // The company's own incidents go to its pages' subscribers and the channels following its incidents;
      // a vendor's, the demo's and those opened from user reports (unconfirmed) to the channels following the service.
      const own = scope.company !== null && change.incident.userGenerated === false;
      if (own) {
        const notifications = incidentNotificationRows(
          { webhooks: scope.recipients.webhooks, emails: scope.recipients.emails },
          { company: scope.company!, event: change.event, incident: change.incident, serviceStatus: after, now },
        );
        for (const row of notifications) rows.push({ row, guarded: true });
        // What a pager or chat destination is told does not depend on the service's status: queued whatever it is.
        const paged = destinationRows(scope.recipients.destinations, {
          companyId: scope.company!.id,
          event: change.event,
          incident: change.incident,
          posted: change.posted,
          now,
        });
        for (const row of paged) rows.push({ row, guarded: false });
      }
      const role = own ? roles.get(change.incident.id) : undefined;
      const channels = own ? scope.recipients.incidentChannels : scope.recipients.serviceChannels;
      const label = source === 'users' ? 'users' : own ? 'company' : 'vendor';
      const announcement = { event: change.event, incident: change.incident, update: change.posted, publicUrl: ctx.publicUrl, now, lead: role?.lead ?? null };
      for (const row of incidentAnnouncementRows(role?.room ? [...channels, role.room] : channels, announcement, label)) {
        rows.push({ row, guarded: false });
      }
      if (role?.room && change.event === 'resolved') rows.push({ row: roomSummaryRow(role.room, change.incident, role, now), guarded: false });
    }
    if (options.tellStatus === false) return rows;
    const cause = options.cause ? options.cause(after) : (made.find((c) => !c.incident.resolved)?.incident.title ?? made.at(-1)?.incident.title ?? null);
    const statusChanges = statusChangeRows(scope.recipients.serviceChannels, {
      service: { id: service.id, name: service.name, urlname: service.urlname },
      publicUrl: ctx.publicUrl,
      from: before,
      to: after,
      cause,
      now,
    });
    for (const row of statusChanges) rows.push({ row, guarded: true });
    return rows;
  };
  // Nothing is queued for a chat platform that is off here: it would flood the channel once turned on.
  const messagesFor = (move: { before: ServiceStatus; after: ServiceStatus }) => everyMessageFor(move).filter(({ row }) => queuable(ctx, row.stream));

  if (made.length > 0 || move.before !== move.after) writes.push(pagesShowChange(trx, service.id, now));
  const expected = messagesFor(move);
  if (!scope.guarded) {
    await batchWrites(trx, [
      ...writes,
      ...outboxWrites(
        trx,
        expected.map((r) => r.row),
      ),
    ]);
  } else {
    const facts: Record<Guard, unknown> = {
      service: service.id,
      now,
      except: made[0]!.incident.id,
      indicator: scope.facts.indicator,
      maintenance: Boolean(scope.facts.maintenance),
      major: Boolean(scope.facts.major),
      minor: Boolean(scope.facts.minor),
    };
    const [check] = await batchWrites(trx, [...writes, ...guardedOutbox(trx, expected)], factsUnchanged.bind(trx, facts));
    if (!check?.held) {
      // The facts moved before the lock was taken; the lock keeps them now.
      const facts = await statusFactsOf(trx, service.id, now, made[0]!.incident.id);
      const actual = statusMove(facts);
      const restated = made[0]!.posted
        ? [restatedMove(trx, made[0]!.incident.id, { before: statusWith(facts, made[0]!.before, now), after: actual.after })]
        : [];
      await batchWrites(trx, [
        ...restated,
        ...outboxWrites(
          trx,
          messagesFor(actual)
            .filter((r) => r.guarded)
            .map((r) => r.row),
        ),
      ]);
    }
  }
  // The company's own incidents that became major get their room (see openRoomWhenMajor).
  if (scope.company !== null) {
    for (const change of made) {
      if (!change.quiet && !change.incident.userGenerated && isOpenMajor(change.after) && !isOpenMajor(change.before)) {
        await openRoomWhenMajor(ctx, trx, scope.company, change.incident);
      }
    }
  }
  return made.map(({ event, incident }) => ({ event, incident }));
}

const isOpenMajor = (row: Pick<Selectable<IncidentsTable>, 'status' | 'resolved'> | null): boolean =>
  row !== null && row.status === 'major' && row.resolved === 0;

/**
 * Stores one change: the incident as it now reads, read back from its write
 * (null once deleted; undefined when a new one's key was taken). Its
 * writes that nothing reads back are added to `later`.
 */
async function store(
  trx: Kysely<Database>,
  scope: ChangeScope,
  change: ProposedChange,
  later: CompiledQuery[],
): Promise<Selectable<IncidentsTable> | null | undefined> {
  if (!change.after) {
    later.push(deleteIncident.bind(trx, { id: change.before!.row.id }));
    return null;
  }
  const { after } = change;
  let row: Selectable<IncidentsTable> | undefined;
  if (scope.single && (change.before || scope.reservedId !== null)) {
    // One change of one incident, whose id is known: its row is the draft as written (its text as it reads back),
    // and its write goes out with the rest of the change.
    const id = change.before ? change.before.row.id : scope.reservedId!;
    row = { ...after, id, service_id: scope.service.id };
    later.push(change.before ? updateIncidentRow.bind(trx, { ...after, id }) : insertWithId.bind(trx, { ...after, service: scope.service.id, id }));
  } else {
    row = change.before ? (await updateIncident(trx, { ...after, id: change.before.row.id }))[0] : await insertIncident(trx, scope.service.id, after);
  }
  if (!row) return undefined;
  // Its updates are written once the service's move is known (see applyIncidentChanges).
  if (change.rewriteTimeline) later.push(clearTimeline.bind(trx, { id: row.id }));
  return row;
}

/**
 * Text as it reads back once stored: a lone surrogate (half of a UTF-16 pair)
 * is stored by both engines as the replacement character.
 */
const wellFormed = (text: string): string => (/[\ud800-\udfff]/.test(text) ? text.replace(/[\ud800-\udfff]/gu, '\ufffd') : text);

/** The change with its text as it will read back. */
const storable = (change: ProposedChange): ProposedChange => {
  const { after } = change;
  return {
    ...change,
    after: after && {
      ...after,
      title: wellFormed(after.title),
      description: wellFormed(after.description),
      components: wellFormed(after.components),
      url: after.url === null ? null : wellFormed(after.url),
    },
    posted: change.posted.map((u) => ({ ...u, description: wellFormed(u.description) })),
  };
};

/** The incident's timeline after the change, its new updates not yet written: from what the source read, or read. */
async function timelineOf(trx: Kysely<Database>, id: number, change: ProposedChange): Promise<StoredUpdate[]> {
  if (!change.after) return change.before!.updates ?? [];
  if (change.rewriteTimeline || !change.before) return change.posted;
  return [...(change.before.updates ?? (await updatesOfIncident(trx, id))), ...change.posted];
}
