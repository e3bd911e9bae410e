import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { DomainError, forbidden, notFound } from '../errors.js';
import { assertMayReadIncidentsOf, findVisibleService, toService } from '../services/service-access.js';
import { parseInput } from '../validation.js';
import type { Incident, IncidentSummary } from '../model/incident.js';
import { applyIncidentChanges, incidentRowOf, lockIncidentScope, lockScope } from './incident-pipeline.js';
import type { ChangeScope, ChangeSource, IncidentDraft, StoredIncident } from './incident-pipeline.js';
import { createIncidentInput, updateIncidentInput } from './incident-input.js';
import { findIncidentRow, incidentRow, loadIncident, toIncident, toSummary } from './incident-repository.js';
import type { IncidentRow, StoredUpdate } from './incident-repository.js';
import { applyUpdate, opening } from './incident-rules.js';

const DAY_MS = 86_400_000;
/** Lists cover incidents created in the last 30 days, plus any still unresolved. */
export const HISTORY_WINDOW_MS = 30 * DAY_MS;

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
    const now = ctx.clock.now().getTime();
    const scope = await lockScope(trx, input.service_id, company, now, null);
    if (!scope) {
      throw new DomainError('invalid_input', 'service_id must be the id of a custom service of your company', [
        { path: ['service_id'], message: 'service_id must be the id of a custom service of your company' },
      ]);
    }
    const transition = opening(input, now);
    const update = transition.update!;
    const after: IncidentDraft = {
      url: null,
      title: transition.next.title,
      description: input.description,
      status: transition.next.status,
      resolved: transition.next.resolved ? 1 : 0,
      created_at: now,
      resolved_at: transition.next.resolvedAt,
      updated_at: now,
      user_generated: 0,
      severity_from_provider: null,
      components: '[]',
      external_key: null,
    };
    const posted = [{ stage: update.stage, description: update.description, created_at: now }];
    const [made] = await applyIncidentChanges(ctx, trx, scope, [{ before: null, after, posted }], { source: sourceOf(ctx), now });
    return made!.incident;
  });
}

/** Changes title or severity, and/or posts an update that may resolve or reopen the incident. */
export async function updateIncident(ctx: DomainContext, company: Company, id: number, raw: unknown): Promise<Incident> {
  const input = parseInput(updateIncidentInput, raw);
  return ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const { scope, stored } = await ownedIncident(trx, company, id, now);
    const current = {
      title: stored.row.title,
      status: stored.row.status,
      resolved: stored.row.resolved === 1,
      resolvedAt: stored.row.resolved_at,
    };
    const transition = applyUpdate(current, input, now);
    if (transition.event === null) return toIncident(ctx, incidentRowOf(stored.row, scope), stored.updates, now);
    const after: IncidentDraft = {
      ...stored.row,
      title: transition.next.title,
      status: transition.next.status,
      resolved: transition.next.resolved ? 1 : 0,
      resolved_at: transition.next.resolvedAt,
      updated_at: now,
      ...(transition.update ? { description: transition.update.description } : {}),
    };
    const posted = transition.update ? [{ stage: transition.update.stage, description: transition.update.description, created_at: now }] : [];
    const [made] = await applyIncidentChanges(ctx, trx, scope, [{ before: stored, after, posted }], { source: sourceOf(ctx), now });
    return made!.incident;
  });
}

/** Removes an incident and its timeline for good. */
export async function deleteIncident(ctx: DomainContext, company: Company, id: number): Promise<void> {
  await ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const { scope, stored } = await ownedIncident(trx, company, id, now);
    await applyIncidentChanges(ctx, trx, scope, [{ before: stored, after: null, posted: [] }], { source: sourceOf(ctx), now });
  });
}

/** Chat users act as `slack:…` or `discord:…`; everyone else through the API. */
const sourceOf = (ctx: DomainContext): ChangeSource => (/^(slack|discord):/.test(ctx.acting.actor) ? 'chat' : 'api');

async function existingIncidentRow(db: Kysely<Database>, id: number, now: number): Promise<IncidentRow> {
  const row = await findIncidentRow(db, id, now);
  if (!row) throw notFound('incident');
  return row;
}

/**
 * An incident of the company's own custom services, its service locked for a
 * change, with its scope; catalog incidents are read-only.
 */
async function ownedIncident(
  trx: Kysely<Database>,
  company: Company,
  id: number,
  now: number,
): Promise<{ scope: ChangeScope; stored: StoredIncident & { updates: StoredUpdate[] } }> {
  const found = await lockIncidentScope(trx, id, now);
  if (!found) throw notFound('incident');
  if (found.scope.service.company_id === null) throw forbidden('Incidents of third-party services cannot be changed');
  if (found.scope.service.company_id !== company.id) throw notFound('incident');
  return found;
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
export async function resolveIncident(ctx: DomainContext, company: Company, id: number, message: string | undefined): Promise<Incident> {
  const description = message?.trim() || 'Resolved.';
  return updateIncident(ctx, company, id, { description, resolution_stage: 'resolved' });
}
