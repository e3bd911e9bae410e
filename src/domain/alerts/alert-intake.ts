import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { DomainError, invalidInput } from '../errors.js';
import { applyIncidentChanges, lockIncidentScope, lockScope } from '../incidents/incident-pipeline.js';
import type { ChangeScope, IncidentDraft, ProposedChange, StoredIncident } from '../incidents/incident-pipeline.js';
import type { StoredUpdate } from '../incidents/incident-repository.js';
import { parseInput } from '../validation.js';
import { findAlertGroup, saveAlertGroup } from './alert-groups.js';
import type { AlertGroup, AlertSource } from './alert-groups.js';
import { alertmanagerInput, genericAlertInput } from './alert-input.js';
import { alertmanagerSignal, moveFor, triggerSignal } from './alert-rules.js';
import type { AlertMove, AlertSignal } from './alert-rules.js';
import { alertServiceOf } from './alert-settings.js';

/*
 * Alerts open, update, resolve and reopen incidents through the incident
 * pipeline, as the API does: an alert group (Alertmanager's groupKey, the
 * generic endpoint's dedup_key) maps to one incident, stored with what fired
 * last, so that a repeated notification changes nothing.
 */

/** The incidents a notification is about (none when it resolves a group never seen). */
export interface AlertBatch {
  incidents: number[];
}

/** An Alertmanager (or Grafana) webhook notification: one group, one incident. */
export async function receiveAlertmanager(ctx: DomainContext, company: Company, raw: unknown): Promise<AlertBatch> {
  const input = parseInput(alertmanagerInput, raw);
  const signal = alertmanagerSignal(input);
  const serviceId = await alertServiceOf(ctx.db, company, [
    { labels: input.commonLabels, path: ['commonLabels'] },
    { labels: input.groupLabels, path: ['groupLabels'] },
    ...input.alerts.map((a, i) => ({ labels: a.labels, path: ['alerts', i, 'labels'] })),
  ]);
  const id = await applySignal(ctx, company, { source: 'alertmanager', key: input.groupKey, serviceId, signal, afterResolved: 'reopen' });
  return { incidents: id === null ? [] : [id] };
}

/** An alert of the generic endpoint: `trigger` opens (or updates the open incident of its key), `resolve` resolves. */
export async function receiveAlert(ctx: DomainContext, company: Company, raw: unknown): Promise<AlertBatch> {
  const input = parseInput(genericAlertInput, raw);
  const key = input.dedup_key;
  if (input.action === 'trigger') {
    const signal = triggerSignal({ title: input.title, status: input.status, description: input.description });
    const id = await applySignal(ctx, company, { source: 'generic', key, serviceId: input.service_id, signal, afterResolved: 'open' });
    return { incidents: id === null ? [] : [id] };
  }
  const signal: AlertSignal = { kind: 'resolved', description: input.description?.trim() || 'Resolved.' };
  const id = await applySignal(ctx, company, { source: 'generic', key, serviceId: null, signal, afterResolved: 'open' });
  if (id === null) throw invalidInput(['dedup_key'], `dedup_key ${JSON.stringify(key)} names no alert of yours to resolve`);
  return { incidents: [id] };
}

interface SignalTarget {
  source: AlertSource;
  key: string;
  /** The service of a new incident; null: the signal may not open one. */
  serviceId: number | null;
  signal: AlertSignal;
  afterResolved: 'reopen' | 'open';
}

/** The group was changed by another request between the read of its row and the lock: read it again. */
const MOVED = Symbol('moved');
const ATTEMPTS = 5;

/** Applies a signal to its group's incident; returns the incident's id, null when the group has none. */
async function applySignal(ctx: DomainContext, company: Company, target: SignalTarget): Promise<number | null> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // Read before the lock, to know which service to lock; read again once it is held.
    const seen = await findAlertGroup(ctx.db, company.id, target.source, target.key);
    if (!seen && (target.signal.kind === 'resolved' || target.serviceId === null)) return null;
    // Most notifications repeat what their group said last (Alertmanager repeats every group_interval): no write.
    if (seen && moveFor(seen, target.signal, target.afterResolved) === 'none') return seen.incidentId;
    const result = await ctx.write((trx) => (seen ? changeGroup(ctx, trx, company, target, seen) : openGroup(ctx, trx, company, target)));
    if (result !== MOVED) return result;
  }
  throw new DomainError('conflict', 'The alert group is being changed by other requests; send it again');
}

const sameGroup = (a: AlertGroup | undefined, b: AlertGroup | undefined): boolean => a?.incidentId === b?.incidentId;

/** A signal for a group that had no incident: opens one. */
async function openGroup(ctx: DomainContext, trx: Kysely<Database>, company: Company, target: SignalTarget): Promise<number | null | typeof MOVED> {
  const now = ctx.clock.now().getTime();
  // The lock first: it queues the changes of the service's incidents, whose groups are read after it.
  const scope = await lockScope(trx, target.serviceId!, company, now, null);
  if (!scope) throw invalidInput(['service_id'], 'service_id must be the id of a custom service of your company');
  if (await findAlertGroup(trx, company.id, target.source, target.key)) return MOVED;
  return change(ctx, trx, scope, null, 'open', target, now);
}

/** A signal for a group with an incident: changes it as the move says. */
async function changeGroup(
  ctx: DomainContext,
  trx: Kysely<Database>,
  company: Company,
  target: SignalTarget,
  seen: AlertGroup,
): Promise<number | null | typeof MOVED> {
  const now = ctx.clock.now().getTime();
  const found = await lockIncidentScope(trx, seen.incidentId, now);
  const current = found ? await findAlertGroup(trx, company.id, target.source, target.key) : undefined;
  if (!found || !sameGroup(current, seen) || found.scope.service.company_id !== company.id) return MOVED;
  const { scope, stored } = found;
  const move = moveFor({ resolved: stored.row.resolved === 1, firing: current!.firing }, target.signal, target.afterResolved);
  if (move === 'none') return stored.row.id;
  if (move === 'open') {
    // A new incident for the key, on the service the trigger names (its lock is held already when it is this one).
    const fresh = await lockScope(trx, target.serviceId!, company, now, null);
    if (!fresh) throw invalidInput(['service_id'], 'service_id must be the id of a custom service of your company');
    return change(ctx, trx, fresh, null, 'open', target, now);
  }
  return change(ctx, trx, scope, stored, move, target, now);
}

/** Makes the move through the pipeline and records what fired. */
async function change(
  ctx: DomainContext,
  trx: Kysely<Database>,
  scope: ChangeScope,
  stored: (StoredIncident & { updates: StoredUpdate[] }) | null,
  move: Exclude<AlertMove, 'none'>,
  target: SignalTarget,
  now: number,
): Promise<number> {
  const { signal } = target;
  const proposed = proposedChange(stored, move, signal, now);
  const [made] = await applyIncidentChanges(ctx, trx, scope, [proposed], { source: 'alerts', now });
  const incidentId = made!.incident.id;
  const firing = signal.kind === 'firing' ? signal.firing : '[]';
  await saveAlertGroup(trx, scope.service.company_id!, target.source, target.key, { incidentId, firing }, now);
  return incidentId;
}

function proposedChange(stored: StoredIncident | null, move: Exclude<AlertMove, 'none'>, signal: AlertSignal, now: number): ProposedChange {
  if (move === 'resolve') {
    const row = stored!.row;
    const after: IncidentDraft = { ...row, description: signal.description, resolved: 1, resolved_at: now, updated_at: now };
    return { before: stored, after, posted: [{ stage: 'resolved', description: signal.description, created_at: now }] };
  }
  if (signal.kind !== 'firing') throw new Error(`a resolved signal cannot ${move}`);
  const posted = [{ stage: 'investigating' as const, description: signal.description, created_at: now }];
  if (move === 'open' || !stored) {
    const after: IncidentDraft = {
      url: null,
      title: signal.title,
      description: signal.description,
      status: signal.status,
      resolved: 0,
      created_at: now,
      resolved_at: null,
      updated_at: now,
      user_generated: 0,
      severity_from_provider: null,
      components: '[]',
      external_key: null,
    };
    return { before: null, after, posted };
  }
  const after: IncidentDraft = {
    ...stored.row,
    title: signal.title,
    status: signal.status,
    description: signal.description,
    resolved: 0,
    resolved_at: null,
    updated_at: now,
  };
  return { before: stored, after, posted };
}
