import type { Kysely } from 'kysely';
import { lockingRead } from '../../db/locks.js';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { Company } from '../companies/company.js';
import type { DomainContext } from '../context.js';
import { DomainError, forbidden, notFound } from '../errors.js';
import { enqueueIncidentAnnouncements, enqueueStatusChange } from '../notifications/channel-outbox.js';
import { enqueueIncidentNotifications } from '../notifications/outbox.js';
import type { ServiceStatus } from '../services/service.js';
import { assertMayReadIncidentsOf, findVisibleService, toService } from '../services/service-access.js';
import { statusBeforeChange, statusOf } from '../services/service-status.js';
import { publishServiceStatus } from '../status-pages/status-pages.js';
import { parseInput } from '../validation.js';
import type { Incident, IncidentEvent, IncidentSummary } from './incident.js';
import { createIncidentInput, updateIncidentInput } from './incident-input.js';
import { findIncidentRow, incidentRow, loadIncident, toSummary } from './incident-repository.js';
import type { IncidentRow } from './incident-repository.js';
import { applyUpdate, opening } from './incident-rules.js';
import type { Transition } from './incident-rules.js';

const DAY_MS = 86_400_000;
/** Lists cover incidents created in the last 30 days, plus any still unresolved. */
export const HISTORY_WINDOW_MS = 30 * DAY_MS;

/** The company's service, locked for the change (see lockServiceForChange). */
const ownedServiceForChange = prepared<'id' | 'company', { id: number }>((db, p) =>
  lockingRead(db, db.selectFrom('services').select('id').where('id', '=', p.id).where('company_id', '=', p.company)),
);

const insertIncident = prepared<'service' | 'title' | 'status' | 'description' | 'resolved' | 'now' | 'resolvedAt', { id: number }>(
  (db, p) =>
    db
      .insertInto('incidents')
      .values({
        service_id: p.service,
        title: p.title,
        status: p.status,
        description: p.description,
        resolved: p.resolved,
        url: null,
        severity_from_provider: null,
        external_key: null,
        created_at: p.now,
        updated_at: p.now,
        resolved_at: p.resolvedAt,
      })
      .returning('id'),
);

const insertUpdate = prepared<'incident' | 'stage' | 'description' | 'now', never>((db, p) =>
  db
    .insertInto('incident_updates')
    .values({ incident_id: p.incident, stage: p.stage, description: p.description, created_at: p.now }),
);

/** An incident the company may read: its own custom services', or a catalog service's its plan shows. */
export async function getIncident(ctx: DomainContext, company: Company, id: number): Promise<Incident> {
  const row = await existingIncidentRow(ctx.db, id, ctx.clock.now().getTime());
  if (row.service_company_id !== null && row.service_company_id !== company.id) throw notFound('incident');
  await assertMayReadIncidentsOf(ctx, company, toService(ctx, serviceOf(row)));
  return loadIncident(ctx, ctx.db, row);
}

export async function listServiceIncidents(
  ctx: DomainContext,
  company: Company,
  urlname: string,
  options: { includeUserReports: boolean },
): Promise<IncidentSummary[]> {
  const service = await findVisibleService(ctx, company, urlname);
  await assertMayReadIncidentsOf(ctx, company, service);
  const now = ctx.clock.now().getTime();
  const since = now - HISTORY_WINDOW_MS;
  let query = incidentRow(ctx.db, now)
    .where('incidents.service_id', '=', service.id)
    .where((eb) => eb.or([eb('incidents.created_at', '>=', since), eb('incidents.resolved', '=', 0)]))
    .orderBy('incidents.created_at', 'desc')
    .orderBy('incidents.id', 'desc');
  if (!options.includeUserReports) query = query.where('incidents.user_generated', '=', 0);
  return (await query.execute()).map((row) => toSummary(row, now));
}

/** Opens (or records an already resolved) incident on one of the company's custom services. */
export async function createIncident(ctx: DomainContext, company: Company, raw: unknown): Promise<Incident> {
  const input = parseInput(createIncidentInput, raw);
  return ctx.write(async (trx) => {
    const [service] = await ownedServiceForChange(trx, { id: input.service_id, company: company.id });
    if (!service) {
      throw new DomainError('invalid_input', 'service_id must be the id of a custom service of your company', [
        { path: ['service_id'], message: 'service_id must be the id of a custom service of your company' },
      ]);
    }
    const now = ctx.clock.now().getTime();
    const before = await statusOf(trx, service.id, now);
    const transition = opening(input, now);
    const [inserted] = await insertIncident(trx, {
      service: service.id,
      title: transition.next.title,
      status: transition.next.status,
      description: input.description,
      resolved: transition.next.resolved ? 1 : 0,
      now,
      resolvedAt: transition.next.resolvedAt,
    });
    return record(ctx, trx, company, inserted!.id, transition, before, now);
  });
}

/** Changes title or severity, and/or posts an update that may resolve or reopen the incident. */
export async function updateIncident(ctx: DomainContext, company: Company, id: number, raw: unknown): Promise<Incident> {
  const input = parseInput(updateIncidentInput, raw);
  return ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const row = await findOwnedIncidentRow(trx, company, id, now);
    const current = {
      title: row.title,
      status: row.status,
      resolved: row.resolved === 1,
      resolvedAt: row.resolved_at,
    };
    const transition = applyUpdate(current, input, now);
    if (transition.event === null) return loadIncident(ctx, trx, row);
    const before = await statusBeforeChange(trx, row.service_id, now);
    await trx
      .updateTable('incidents')
      .set({
        title: transition.next.title,
        status: transition.next.status,
        resolved: transition.next.resolved ? 1 : 0,
        resolved_at: transition.next.resolvedAt,
        updated_at: now,
        ...(transition.update ? { description: transition.update.description } : {}),
      })
      .where('id', '=', row.id)
      .execute();
    return record(ctx, trx, company, row.id, transition, before, now);
  });
}

/** Removes an incident and its timeline for good. */
export async function deleteIncident(ctx: DomainContext, company: Company, id: number): Promise<void> {
  await ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const row = await findOwnedIncidentRow(trx, company, id, now);
    const last = await loadIncident(ctx, trx, row);
    const before = await statusBeforeChange(trx, row.service_id, now);
    await trx.deleteFrom('incidents').where('id', '=', row.id).execute();
    await announce(ctx, trx, company, { event: 'deleted', incident: last, updatePosted: false, before, now });
  });
}

/** Appends the transition's update, then shows the result on status pages and queues notifications. */
async function record(
  ctx: DomainContext,
  trx: Kysely<Database>,
  company: Company,
  id: number,
  transition: Transition,
  before: ServiceStatus,
  now: number,
): Promise<Incident> {
  if (transition.update) {
    await insertUpdate(trx, { incident: id, stage: transition.update.stage, description: transition.update.description, now });
  }
  const incident = await loadIncident(ctx, trx, await existingIncidentRow(trx, id, now));
  if (transition.event) {
    await announce(ctx, trx, company, { event: transition.event, incident, updatePosted: transition.update !== null, before, now });
  }
  return incident;
}

/**
 * Everything a change of an incident causes, in its transaction: the
 * service's status on its status pages, the subscribers' notifications, the
 * announcement in every channel following the company's incidents, and a
 * status-change message where the service's status moved.
 */
async function announce(
  ctx: DomainContext,
  trx: Kysely<Database>,
  company: Company,
  change: { event: IncidentEvent; incident: Incident; updatePosted: boolean; before: ServiceStatus; now: number },
): Promise<void> {
  const { event, incident, now } = change;
  const serviceStatus = await statusOf(trx, incident.serviceId, now);
  await publishServiceStatus(trx, incident.serviceId, serviceStatus, now);
  await enqueueIncidentNotifications(trx, { company, event, incident, serviceStatus, now });
  await enqueueIncidentAnnouncements(trx, {
    companyId: company.id,
    event,
    incident,
    update: change.updatePosted,
    publicUrl: ctx.publicUrl,
    now,
  });
  await enqueueStatusChange(trx, {
    service: { id: incident.serviceId, name: incident.serviceName, urlname: incident.serviceUrlname },
    publicUrl: ctx.publicUrl,
    from: change.before,
    to: serviceStatus,
    cause: incident.title,
    now,
  });
}

async function existingIncidentRow(db: Kysely<Database>, id: number, now: number): Promise<IncidentRow> {
  const row = await findIncidentRow(db, id, now);
  if (!row) throw notFound('incident');
  return row;
}

/** Changes are for incidents on the company's own custom services; catalog incidents are read-only. */
async function findOwnedIncidentRow(db: Kysely<Database>, company: Company, id: number, now: number): Promise<IncidentRow> {
  const row = await existingIncidentRow(db, id, now);
  if (row.service_company_id === null) throw forbidden('Incidents of third-party services cannot be changed');
  if (row.service_company_id !== company.id) throw notFound('incident');
  return row;
}

const serviceOf = (row: IncidentRow) => ({
  id: row.service_id,
  name: row.service_name,
  urlname: row.service_urlname,
  company_id: row.service_company_id,
  status_page_url: row.service_status_page_url,
});

/** The open incidents on the company's custom services, newest first. */
export async function listOpenIncidents(ctx: DomainContext, company: Company): Promise<IncidentSummary[]> {
  const now = ctx.clock.now().getTime();
  const rows = await incidentRow(ctx.db, now)
    .where('services.company_id', '=', company.id)
    .where('incidents.resolved', '=', 0)
    .orderBy('incidents.created_at', 'desc')
    .orderBy('incidents.id', 'desc')
    .execute();
  return rows.map((row) => toSummary(row, now));
}

/** Resolves an incident with a closing update; the chat verb behind `/incident resolve`. */
export async function resolveIncident(
  ctx: DomainContext,
  company: Company,
  id: number,
  message: string | undefined,
): Promise<Incident> {
  const description = message?.trim() || 'Resolved.';
  return updateIncident(ctx, company, id, { description, resolution_stage: 'resolved' });
}
