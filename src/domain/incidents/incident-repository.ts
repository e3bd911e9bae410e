import type { Kysely, Selectable } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { Database, IncidentUpdatesTable } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { begunBy, incidentAt, updatesAt } from '../model/demo-view.js';
import { incidentPageUrl } from '../status-pages/status-pages.js';
import type { Incident, IncidentSummary, IncidentUpdate } from '../model/incident.js';
import { incidentTrackerUrl } from '../model/incident.js';

/** Incident rows with their service, of the incidents there are at `now`; read each through `toSummary` or `loadIncident`. */
export const incidentRow = (db: Kysely<Database>, now: number) =>
  db
    .selectFrom('incidents')
    .innerJoin('services', 'services.id', 'incidents.service_id')
    .select([
      'incidents.id',
      'incidents.url',
      'incidents.title',
      'incidents.description',
      'incidents.status',
      'incidents.resolved',
      'incidents.created_at',
      'incidents.resolved_at',
      'incidents.updated_at',
      'incidents.service_id',
      'incidents.user_generated',
      'incidents.severity_from_provider',
      'incidents.components',
      'services.name as service_name',
      'services.urlname as service_urlname',
      'services.company_id as service_company_id',
      'services.status_page_url as service_status_page_url',
    ])
    .select((eb) =>
      eb
        .selectFrom('status_page_services')
        .innerJoin('status_pages', 'status_pages.id', 'status_page_services.status_page_id')
        .select('status_pages.url')
        .whereRef('status_page_services.service_id', '=', 'incidents.service_id')
        .orderBy('status_pages.id')
        .limit(1)
        .as('service_page_url'),
    )
    .where(begunBy(now));

export type IncidentRow = NonNullable<Awaited<ReturnType<ReturnType<typeof incidentRow>['executeTakeFirst']>>>;

const incidentById = prepared<'id' | 'now', IncidentRow>((db, p) => incidentRow(db, p.now).where('incidents.id', '=', p.id));

export async function findIncidentRow(db: Kysely<Database>, id: number, now: number): Promise<IncidentRow | undefined> {
  return (await incidentById(db, { id, now }))[0];
}

const updatesOf = prepared<'incident', StoredUpdate>((db, p) =>
  db
    .selectFrom('incident_updates')
    .select(['stage', 'description', 'created_at', 'service_status_before', 'service_status_after'])
    .where('incident_id', '=', p.incident)
    .orderBy('id'),
);

/** An incident's timeline as stored, oldest first. */
export const updatesOfIncident = async (db: Kysely<Database>, id: number): Promise<StoredUpdate[]> => updatesOf(db, { incident: id });

const parseComponents = (stored: string): string[] => {
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? parsed.map(String) : [];
};

/**
 * Where an incident is read about: the url it was given (a vendor's), else,
 * for a custom service, its page on the service's public status page (the
 * first linked one), else none. Lists and the single view alike.
 */
export const incidentUrl = (row: Pick<IncidentRow, 'id' | 'url' | 'service_company_id' | 'service_page_url'>): string | null =>
  row.url ?? (row.service_company_id !== null && row.service_page_url != null ? incidentPageUrl(row.service_page_url, row.id) : null);

/** The incident as it reads at `now` (see demo-view.ts). */
export function toSummary(stored: Omit<IncidentRow, 'service_status_page_url' | 'severity_from_provider'>, now: number): IncidentSummary {
  const row = incidentAt(stored, now);
  return {
    id: row.id,
    url: incidentUrl(row),
    title: row.title,
    description: row.description,
    status: row.status,
    resolved: row.resolved === 1,
    createdAt: new Date(row.created_at),
    resolvedAt: row.resolved_at === null ? null : new Date(row.resolved_at),
    updatedAt: new Date(row.updated_at),
    serviceId: row.service_id,
    serviceName: row.service_name,
    serviceUrlname: row.service_urlname,
    userGenerated: row.user_generated === 1,
    components: parseComponents(row.components),
  };
}

/** An update as stored; the service's status around it once written (see update-writes.ts). */
export type StoredUpdate = Pick<Selectable<IncidentUpdatesTable>, 'stage' | 'description' | 'created_at'> &
  Partial<Pick<Selectable<IncidentUpdatesTable>, 'service_status_before' | 'service_status_after'>>;

const serviceStatusOf = (u: StoredUpdate | undefined): IncidentUpdate['serviceStatus'] =>
  u?.service_status_before != null && u.service_status_after != null ? { before: u.service_status_before, after: u.service_status_after } : null;

/**
 * The full incident: its updates oldest first, and for a custom service the
 * addresses on its first linked status page.
 */
export async function loadIncident(ctx: DomainContext, db: Kysely<Database>, row: IncidentRow): Promise<Incident> {
  const now = ctx.clock.now().getTime();
  const updates = await updatesOf(db, { incident: row.id });
  return toIncident(ctx, row, updates, now);
}

/** `loadIncident` of what was read already: the stored row and its stored updates in order. */
export function toIncident(ctx: DomainContext, row: IncidentRow, stored: readonly StoredUpdate[], now: number): Incident {
  const updates = updatesAt(row, stored, now);
  const summary = toSummary(row, now);
  const ownPage = row.service_company_id !== null ? row.service_page_url : null;
  return {
    ...summary,
    serviceStatusUrl: ownPage ?? row.service_status_page_url,
    severityFromProvider: row.service_company_id === null ? row.severity_from_provider : null,
    // Past the stored ones, the closing update of a demo outage that is over (see updatesAt): the job writes it later.
    updates: updates.map((u, i) => ({
      stage: u.stage,
      description: u.description,
      createdAt: new Date(u.created_at),
      serviceStatus: serviceStatusOf(stored[i]),
    })),
    trackerUrl: incidentTrackerUrl(ctx.publicUrl, row.id),
  };
}
