import type { CompiledQuery, Kysely } from 'kysely';
import { runWrites } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { Company } from '../companies/company.js';
import type { DomainContext } from '../context.js';
import { DomainError, forbidden, notFound } from '../errors.js';
import { assertMayReadIncidentsOf, findVisibleService, toService } from '../services/service-access.js';
import { parseInput } from '../validation.js';
import { auditWrite, changesBetween, created, removed } from '../audit/audit-trail.js';
import type { Incident, IncidentEvent, IncidentSummary } from './incident.js';
import { readChangedIncidentFacts, readNewIncidentFacts, writeChange } from './incident-change.js';
import type { ChangeFacts, ChangedIncidentFacts } from './incident-change.js';
import { createIncidentInput, updateIncidentInput } from './incident-input.js';
import {
  deleteIncidentRow,
  findIncidentRow,
  incidentRow,
  insertIncidentRow,
  insertUpdateRow,
  loadIncident,
  toIncident,
  toSummary,
  updateIncidentRow,
} from './incident-repository.js';
import type { IncidentRow, StoredUpdate } from './incident-repository.js';
import { applyUpdate, opening } from './incident-rules.js';
import { changesNothingCached } from '../../db/writer.js';

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
    const facts = await readNewIncidentFacts(trx, input.service_id, company, now);
    if (!facts) {
      throw new DomainError('invalid_input', 'service_id must be the id of a custom service of your company', [
        { path: ['service_id'], message: 'service_id must be the id of a custom service of your company' },
      ]);
    }
    const { service, id } = facts;
    const transition = opening(input, now);
    const update = transition.update!;
    // The incident as it reads back once written.
    const row: IncidentRow = {
      id,
      url: null,
      title: transition.next.title,
      description: input.description,
      status: transition.next.status,
      resolved: transition.next.resolved ? 1 : 0,
      created_at: now,
      resolved_at: transition.next.resolvedAt,
      updated_at: now,
      service_id: service.id,
      user_generated: 0,
      severity_from_provider: null,
      components: '[]',
      service_name: service.name,
      service_urlname: service.urlname,
      service_company_id: company.id,
      service_status_page_url: service.status_page_url,
    };
    const stored = { stage: update.stage, description: update.description, created_at: now };
    const writes = [insertIncidentRow(trx, row), insertUpdateRow(trx, id, stored)];
    const audit = auditWrite(ctx, trx, {
      companyId: company.id,
      action: 'incident.create',
      targetType: 'incident',
      targetId: id,
      changes: created({ service_id: service.id, ...auditedState(transition.next), description: input.description }),
    });
    if (audit) writes.push(audit);
    return announced(ctx, trx, company, facts, writes, {
      event: 'created',
      row,
      updates: [stored],
      before: null,
      updatePosted: true,
      exact: wellFormed(input.title) && wellFormed(input.description),
      now,
    });
  });
}

/** Changes title or severity, and/or posts an update that may resolve or reopen the incident. */
export async function updateIncident(ctx: DomainContext, company: Company, id: number, raw: unknown): Promise<Incident> {
  const input = parseInput(updateIncidentInput, raw);
  return ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const facts = await ownedIncidentFacts(trx, company, id, now);
    const { row: stored } = facts;
    const current = {
      title: stored.title,
      status: stored.status,
      resolved: stored.resolved === 1,
      resolvedAt: stored.resolved_at,
    };
    const transition = applyUpdate(current, input, now);
    if (transition.event === null) {
      changesNothingCached(trx);
      return toIncident(ctx, stored, facts.updates, facts.page, now);
    }
    const row: IncidentRow = {
      ...stored,
      title: transition.next.title,
      status: transition.next.status,
      resolved: transition.next.resolved ? 1 : 0,
      resolved_at: transition.next.resolvedAt,
      updated_at: now,
      ...(transition.update ? { description: transition.update.description } : {}),
    };
    const writes = [updateIncidentRow(trx, row, { description: transition.update !== null })];
    const updates = [...facts.updates];
    if (transition.update) {
      const posted = { stage: transition.update.stage, description: transition.update.description, created_at: now };
      writes.push(insertUpdateRow(trx, row.id, posted));
      updates.push(posted);
    }
    const audit = auditWrite(ctx, trx, {
      companyId: company.id,
      action: 'incident.update',
      targetType: 'incident',
      targetId: row.id,
      changes: {
        ...changesBetween(auditedState(current), auditedState(transition.next)),
        ...(transition.update ? { update: { to: { stage: transition.update.stage, description: transition.update.description } } } : {}),
      },
    });
    if (audit) writes.push(audit);
    return announced(ctx, trx, company, facts, writes, {
      event: transition.event,
      row,
      updates,
      before: stored,
      updatePosted: transition.update !== null,
      exact: wellFormed(input.title ?? '') && wellFormed(input.description ?? ''),
      now,
    });
  });
}

/** Removes an incident and its timeline for good. */
export async function deleteIncident(ctx: DomainContext, company: Company, id: number): Promise<void> {
  await ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const facts = await ownedIncidentFacts(trx, company, id, now);
    const { row } = facts;
    const last = toIncident(ctx, row, facts.updates, facts.page, now);
    const writes = [deleteIncidentRow(trx, row.id)];
    const audit = auditWrite(ctx, trx, {
      companyId: company.id,
      action: 'incident.delete',
      targetType: 'incident',
      targetId: row.id,
      changes: removed({ service_id: row.service_id, title: row.title, status: row.status, resolved: row.resolved === 1 }),
    });
    if (audit) writes.push(audit);
    await writeChange(ctx, trx, company, facts, writes, { event: 'deleted', incident: last, before: row, after: null, updatePosted: false, now });
  });
}

/** The fields of an incident's state that its audit rows show. */
const auditedState = (state: { title: string; status: string; resolved: boolean }) => ({
  title: state.title,
  status: state.status,
  resolved: state.resolved,
});

/**
 * Text that reads back as it was written. A lone surrogate does not: the
 * engines store it as the replacement character, each in its own way.
 */
const wellFormed = (text: string): boolean => !/[\ud800-\udfff]/.test(text) || Buffer.from(text, 'utf8').toString('utf8') === text;

/**
 * Writes the change of an incident with all it causes (see writeChange), and
 * returns the incident as it now reads: made from what was written, or
 * (`exact` false) read back, as its text may not read back as sent.
 */
async function announced(
  ctx: DomainContext,
  trx: Kysely<Database>,
  company: Company,
  facts: ChangeFacts,
  writes: CompiledQuery[],
  change: {
    event: IncidentEvent;
    /** The incident as stored after the change, and its updates. */
    row: IncidentRow;
    updates: StoredUpdate[];
    /** As stored before; null for a new one. */
    before: IncidentRow | null;
    updatePosted: boolean;
    exact: boolean;
    now: number;
  },
): Promise<Incident> {
  const { row, now } = change;
  let incident = toIncident(ctx, row, change.updates, facts.page, now);
  if (!change.exact) {
    await runWrites(trx, writes);
    writes = [];
    incident = await loadIncident(ctx, trx, await existingIncidentRow(trx, row.id, now));
  }
  const { event, updatePosted } = change;
  await writeChange(ctx, trx, company, facts, writes, { event, incident, before: change.before, after: row, updatePosted, now });
  return incident;
}

async function existingIncidentRow(db: Kysely<Database>, id: number, now: number): Promise<IncidentRow> {
  const row = await findIncidentRow(db, id, now);
  if (!row) throw notFound('incident');
  return row;
}

/**
 * An incident of the company's own custom services, locked for a change, with
 * what the change is told from; catalog incidents are read-only.
 */
async function ownedIncidentFacts(trx: Kysely<Database>, company: Company, id: number, now: number): Promise<ChangedIncidentFacts> {
  const facts = await readChangedIncidentFacts(trx, id, company, now);
  if (!facts) throw notFound('incident');
  if (facts.row.service_company_id === null) throw forbidden('Incidents of third-party services cannot be changed');
  if (facts.row.service_company_id !== company.id) throw notFound('incident');
  return facts;
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
