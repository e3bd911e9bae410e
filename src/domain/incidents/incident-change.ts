import { sql } from 'kysely';
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import { engineOf } from '../../db/database.js';
import { jsonRows, rowsOf } from '../../db/json-rows.js';
import type { JsonRows } from '../../db/json-rows.js';
import { lockedRead } from '../../db/locks.js';
import { prepared, runWrites } from '../../db/prepared.js';
import type { Database, ServicesTable } from '../../db/schema.js';
import type { Company } from '../companies/company.js';
import type { DomainContext } from '../context.js';
import { incidentAnnouncementRows, statusChangeRows } from '../notifications/channel-outbox.js';
import { recipientColumns, recipientsOf } from '../notifications/change-recipients.js';
import type { ChangeRecipients, RecipientColumns } from '../notifications/change-recipients.js';
import { guardedOutboxWrites, outboxWrites } from '../notifications/enqueue.js';
import type { OutboxRow } from '../notifications/enqueue.js';
import { incidentNotificationRows } from '../notifications/outbox.js';
import { statusFactColumns, statusFactsAre, statusFactsOf, statusWith } from '../services/service-status.js';
import type { CountedIncident, StatusFacts } from '../services/service-status.js';
import { linkedPagesQuery, serviceStatusWrite } from '../status-pages/status-pages.js';
import type { LinkedPage } from '../status-pages/status-pages.js';
import type { Incident, IncidentEvent } from './incident.js';
import { incidentRow } from './incident-repository.js';
import type { IncidentRow, StoredUpdate } from './incident-repository.js';

/*
 * A change of an incident takes its service's lock with one statement that
 * also reads all the change is told from: the service's status facts without
 * the incident, its pages, everyone to tell. The status before and after then
 * follow from the incident before and after (statusWith), and the change's
 * writes go out in a second statement (runWrites). On PostgreSQL the facts
 * may predate the lock when it had to be waited for: the writes that depend
 * on them are made only if they still hold, and otherwise again from the facts
 * as they are (which the lock now keeps), so each status move is told once.
 */

/** What every change reads along. */
export interface ChangeFacts {
  facts: StatusFacts;
  /** The service's first linked status page (its public page), if any. */
  page: LinkedPage | undefined;
  recipients: ChangeRecipients;
}

type FactColumns = StatusFacts & RecipientColumns & { pages: JsonRows<LinkedPage> };

const factColumns = (db: Kysely<Database>, company: number) => [
  jsonRows(db, linkedPagesQuery(db, sql.ref<number>('services.id')), ['id', 'name', 'slug', 'url'], 'id').as('pages'),
  ...recipientColumns(db, company),
];

const factsOf = (row: FactColumns, companyId: number): ChangeFacts => ({
  facts: { indicator: row.indicator, maintenance: row.maintenance, major: row.major, minor: row.minor },
  page: rowsOf(row.pages)[0],
  recipients: recipientsOf(row, companyId),
});

/**
 * The id the next incident gets, taken now so that the rows telling of it are
 * written with it. SQLite: what its autoincrement would give (its writer holds
 * the database, so nobody else takes it meanwhile).
 */
const nextIncidentId = (db: Kysely<Database>) =>
  engineOf(db) === 'postgres'
    ? sql<number>`nextval(pg_get_serial_sequence('incidents', 'id'))`
    : sql<number>`(select max(coalesce((select seq from sqlite_sequence where name = 'incidents'), 0), coalesce((select max(id) from incidents), 0)) + 1)`;

type NewIncidentRow = Pick<Selectable<ServicesTable>, 'id' | 'name' | 'urlname' | 'status_page_url'> & FactColumns & { next_id: number };

const newIncidentFacts = lockedRead<'service' | 'company' | 'now', NewIncidentRow>((db, p) =>
  db
    .selectFrom('services')
    .select(['services.id', 'services.name', 'services.urlname', 'services.status_page_url'])
    .select((eb) => [...statusFactColumns(eb, p.now, null), nextIncidentId(db).as('next_id'), ...factColumns(db, p.company)])
    .where('services.id', '=', p.service)
    .where('services.company_id', '=', p.company),
);

export interface NewIncidentFacts extends ChangeFacts {
  service: Pick<Selectable<ServicesTable>, 'id' | 'name' | 'urlname' | 'status_page_url'>;
  id: number;
}

/**
 * Locks the company's service for a new incident (see lockServiceForChange),
 * and reads the incident's id and the facts; undefined when the service is not the company's.
 */
export async function readNewIncidentFacts(trx: Kysely<Database>, serviceId: number, company: Company, now: number): Promise<NewIncidentFacts | undefined> {
  const row = await newIncidentFacts(trx, { service: serviceId, company: company.id, now });
  if (!row) return undefined;
  const service = { id: row.id, name: row.name, urlname: row.urlname, status_page_url: row.status_page_url };
  return { service, id: Number(row.next_id), ...factsOf(row, company.id) };
}

type ChangedIncidentRow = IncidentRow & FactColumns & { updates: JsonRows<StoredUpdate & { id: number }> };

const changedIncidentFacts = lockedRead<'incident' | 'company' | 'now', ChangedIncidentRow>((db, p) =>
  incidentRow(db, p.now)
    .select((eb) => [
      ...statusFactColumns(eb, p.now, p.incident),
      jsonRows(
        db,
        eb
          .selectFrom('incident_updates')
          .select(['incident_updates.id', 'incident_updates.stage', 'incident_updates.description', 'incident_updates.created_at'])
          .whereRef('incident_updates.incident_id', '=', 'incidents.id'),
        ['id', 'stage', 'description', 'created_at'],
        'id',
      ).as('updates'),
      ...factColumns(db, p.company),
    ])
    .where('incidents.id', '=', p.incident),
);

export interface ChangedIncidentFacts extends ChangeFacts {
  row: IncidentRow;
  /** Its updates as stored, oldest first. */
  updates: StoredUpdate[];
}

/** Locks an incident's service for its change, and reads the incident as stored and the facts (without it, see statusWith). */
export async function readChangedIncidentFacts(
  trx: Kysely<Database>,
  incidentId: number,
  company: Company,
  now: number,
): Promise<ChangedIncidentFacts | undefined> {
  const found = await changedIncidentFacts(trx, { incident: incidentId, company: company.id, now });
  if (!found) return undefined;
  const row: IncidentRow = {
    id: found.id,
    url: found.url,
    title: found.title,
    description: found.description,
    status: found.status,
    resolved: found.resolved,
    created_at: found.created_at,
    resolved_at: found.resolved_at,
    updated_at: found.updated_at,
    service_id: found.service_id,
    user_generated: found.user_generated,
    severity_from_provider: found.severity_from_provider,
    components: found.components,
    service_name: found.service_name,
    service_urlname: found.service_urlname,
    service_company_id: found.service_company_id,
    service_status_page_url: found.service_status_page_url,
  };
  const updates = rowsOf(found.updates).map((u) => ({ stage: u.stage, description: u.description, created_at: u.created_at }));
  return { row, updates, ...factsOf(found, company.id) };
}

type Guard = 'service' | 'now' | 'except' | 'indicator' | 'maintenance' | 'major' | 'minor';

/** Whether the service's facts are still those read with the lock: the part named `read` of the change's writes (see runWrites). */
const factsHold = prepared<Guard, { held: boolean }>((db, p) =>
  db.selectNoFrom((eb) =>
    sql<boolean>`${statusFactsAre(eb, p.service, p.now, p.except, { indicator: p.indicator, maintenance: p.maintenance, major: p.major, minor: p.minor })}`.as(
      'held',
    ),
  ),
);
const guardedOutbox = guardedOutboxWrites(sql<boolean>`(select held from read)`);

export interface IncidentChange {
  event: IncidentEvent;
  /** The incident after the change (before it, for a deletion). */
  incident: Incident;
  /** As stored before and after the change; null where there is none. */
  before: CountedIncident | null;
  after: CountedIncident | null;
  /** Whether the change posted an update (shown as a reply under the incident's message). */
  updatePosted: boolean;
  now: number;
}

/**
 * Runs the incident's own writes (`writes`) with everything its change
 * causes, in its transaction: the service's status on its status pages, the
 * subscribers' notifications, the announcement in every channel following the
 * company's incidents, and a status-change message where the service's status moved.
 */
export async function writeChange(
  ctx: DomainContext,
  trx: Kysely<Database>,
  company: Company,
  read: ChangeFacts,
  writes: readonly CompiledQuery[],
  change: IncidentChange,
): Promise<void> {
  const { incident, now } = change;
  const told = (facts: StatusFacts | undefined) => {
    const before = statusWith(facts, change.before, now);
    const after = statusWith(facts, change.after, now);
    const service = { id: incident.serviceId, name: incident.serviceName, urlname: incident.serviceUrlname };
    return {
      after,
      notifications: incidentNotificationRows(
        { webhooks: read.recipients.webhooks, emails: read.recipients.emails },
        { company, event: change.event, incident, serviceStatus: after, now },
      ),
      statusChanges: statusChangeRows(read.recipients.serviceChannels, {
        service,
        publicUrl: ctx.publicUrl,
        from: before,
        to: after,
        cause: incident.title,
        now,
      }),
    };
  };
  const announcements = incidentAnnouncementRows(
    read.recipients.incidentChannels,
    { event: change.event, incident, update: change.updatePosted, publicUrl: ctx.publicUrl, now },
    'company',
  );
  const expected = told(read.facts);
  if (engineOf(trx) !== 'postgres') {
    const rows = [...expected.notifications, ...announcements, ...expected.statusChanges];
    await runWrites(trx, [...writes, serviceStatusWrite(trx, incident.serviceId, expected.after, now), ...outboxWrites(trx, rows)]);
    return;
  }
  const facts: Record<Guard, unknown> = {
    service: incident.serviceId,
    now,
    except: incident.id,
    indicator: read.facts.indicator,
    maintenance: Boolean(read.facts.maintenance),
    major: Boolean(read.facts.major),
    minor: Boolean(read.facts.minor),
  };
  const rows: { row: OutboxRow; guarded: boolean }[] = [
    ...expected.notifications.map((row) => ({ row, guarded: true })),
    ...announcements.map((row) => ({ row, guarded: false })),
    ...expected.statusChanges.map((row) => ({ row, guarded: true })),
  ];
  // The status published here is published again below when the facts did not hold.
  const [check] = await runWrites(
    trx,
    [...writes, serviceStatusWrite(trx, incident.serviceId, expected.after, now), ...guardedOutbox(trx, rows)],
    factsHold.bind(trx, facts),
  );
  if (check?.held) return;
  // The facts moved before the lock was taken; the lock keeps them now.
  const actual = told(await statusFactsOf(trx, incident.serviceId, now, incident.id));
  await runWrites(trx, [
    serviceStatusWrite(trx, incident.serviceId, actual.after, now),
    ...outboxWrites(trx, [...actual.notifications, ...actual.statusChanges]),
  ]);
}
