import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { auditWrite, recordAudit } from '../audit/audit-trail.js';
import { incidentChatRoles } from '../chat/incident-chat-roles.js';
import type { IncidentChatRoles } from '../chat/incident-chat-roles.js';
import { openRoomWhenMajor } from '../chat/incident-room.js';
import type { DomainContext } from '../context.js';
import { enqueueAll } from '../notifications/enqueue.js';
import type { ServiceStatus } from '../model/service.js';
import { statusOf } from '../services/service-status.js';
import { pagesShowChange } from '../status-pages/status-pages.js';
import { incidentAuditEntry, monitorAuditEntry, removalAuditEntry } from './pipeline/change-audit.js';
import { incidentMessages, monitorMessages } from './pipeline/change-messages.js';
import type { MessageOptions } from './pipeline/change-messages.js';
import { becameMajor, singleChange, statusMoveOf, storable } from './pipeline/change-rules.js';
import { monitorRecipients } from './pipeline/change-scope.js';
import type { ChangeScope } from './pipeline/change-scope.js';
import { writeConsequences } from './pipeline/consequence-writes.js';
import type { IncidentRemoval, MadeChange, MonitorIncidentChange, ProposedChange, StoredChange, StoredMonitorIncident } from './pipeline/incident-change.js';
import { deleteRemoved, storeChange, storeMonitorChange } from './pipeline/incident-store.js';
import { updateWrites } from './pipeline/update-writes.js';
import type { StatusMove } from './pipeline/update-writes.js';

export { incidentRowOf, lockIncidentScope, lockScope, lockScopeForMany } from './pipeline/change-scope.js';
export type { ChangeScope } from './pipeline/change-scope.js';
export type {
  ChangeSource,
  IncidentDraft,
  IncidentRemoval,
  MadeChange,
  MonitorIncidentChange,
  ProposedChange,
  StoredIncident,
  StoredMonitorIncident,
  WatchedMonitor,
} from './pipeline/incident-change.js';

/*
 * Every change of an incident goes through this pipeline, whoever makes it:
 * a company through the API or chat, a vendor's feed, users' reports, the
 * demo, alerts, a custom monitor's regions; and every removal (retention,
 * a company or service going away). The source decides what the incident
 * becomes; the pipeline stores it and makes every consequence of it, the
 * same for all. Its parts, in pipeline/, in the order a change meets them:
 * the scope (change-scope.ts: the service locked, with everything the change
 * is told from) and the rules (change-rules.ts), the store
 * (incident-store.ts, update-writes.ts: the one writer of the incident
 * tables), and the consequences: the service's change on its status pages,
 * the outbox rows for each destination the change concerns
 * (change-messages.ts: webhook and email subscribers of those pages, the
 * company's paging and chat destinations, the channels following the
 * company's incidents, the service or the monitor, a status-change message
 * where the service's status moved), written together
 * (consequence-writes.ts), and the audit row (change-audit.ts).
 */

export interface ChangeOptions extends MessageOptions {
  /** The status the service's followers last heard of, when not the one the scope read (the demo's, which reads have moved on since). */
  statusToldBefore?: ServiceStatus;
}

/**
 * Makes the changes of a service's incidents, which `scope` locked, with
 * every consequence, in the caller's transaction. Returns the changes as
 * made, in order; a new incident whose external key is taken is left out
 * (another process wrote it).
 */
export async function applyIncidentChanges(
  ctx: DomainContext,
  trx: Kysely<Database>,
  scope: ChangeScope,
  changes: readonly ProposedChange[],
  options: ChangeOptions,
): Promise<MadeChange[]> {
  const { now } = options;
  // Writes that nothing reads back go out with the consequences, in one batch (see batchWrites).
  const writes: CompiledQuery[] = [];
  const made: StoredChange[] = [];
  for (const proposed of changes) {
    const change = storable(proposed);
    const stored = await storeChange(ctx, trx, scope, change, writes, now);
    if (!stored) continue;
    made.push(stored);
    const audit = change.seeded ? null : auditWrite(ctx, trx, incidentAuditEntry(scope, stored));
    if (audit) writes.push(audit);
  }
  // A scope of many may see the service's status move with no incident changed (a vendor's stated status).
  if (made.length === 0 && scope.single) return [];
  const roles = await chatRolesOf(trx, scope, made);

  // The service's status before and after: from the facts read without the one incident changed, or read again.
  const single = singleChange(scope, made);
  const moveFrom = (facts: ChangeScope['facts'] | undefined) => statusMoveOf(facts, single, now, options.statusToldBefore);
  // Many changes (a job's): their writes go one by one, as one statement of them all would be a text of its own each time.
  if (!single) for (const write of writes.splice(0)) await trx.executeQuery(write);
  const move = single ? moveFrom(scope.facts) : { before: moveFrom(scope.facts).before, after: await statusOf(trx, scope.service.id, now) };
  // What the change did to the service's status, which the last update of each change records (see update-writes.ts). A job's
  // changes were written together (their incident rows as they were stored): each records the move of them all, as read.
  const recorded: StatusMove = { before: statusMoveOf(scope.facts, single, now).before, after: move.after };
  for (const change of made) writes.push(...updateWrites(trx, change.incident.id, change.posted, recorded));
  if (made.length > 0 || move.before !== move.after) writes.push(pagesShowChange(trx, scope.service.id, now));

  const messagesFor = (m: StatusMove) => incidentMessages(ctx, scope, made, roles, m, options);
  await writeConsequences(trx, scope, { writes, move, moveFrom, messagesFor, single, now });
  if (scope.company !== null) {
    for (const change of made) if (becameMajor(change)) await openRoomWhenMajor(ctx, trx, scope.company, change.incident);
  }
  return made.map(({ event, incident }) => ({ event, incident }));
}

/** The lead and room of the company's own incidents that changed (see domain/chat/incident-chat-roles.ts). */
async function chatRolesOf(trx: Kysely<Database>, scope: ChangeScope, made: readonly StoredChange[]): Promise<Map<number, IncidentChatRoles>> {
  if (scope.company === null) return new Map();
  const changed = made.filter((c) => !c.quiet && c.before !== null && c.after !== null).map((c) => c.incident.id);
  return incidentChatRoles(trx, scope.company.id, changed);
}

/**
 * Makes a custom monitor's change of its incidents, which its regions'
 * quorum decided, with every consequence, in the caller's transaction:
 * returns the monitor incidents it opened or resolved.
 */
export async function applyMonitorIncidentChange(
  ctx: DomainContext,
  trx: Kysely<Database>,
  change: MonitorIncidentChange,
  options: { source: 'monitors'; now: number },
): Promise<StoredMonitorIncident[]> {
  const { now } = options;
  const incidents = await storeMonitorChange(trx, change, now);
  const recipients = await monitorRecipients(trx, change.monitor);
  const destinations = incidents.length > 0 ? await recipients.destinations() : [];
  await enqueueAll(trx, monitorMessages(ctx, change, recipients.channels, destinations, incidents, now));
  await recordAudit(ctx, trx, monitorAuditEntry(change));
  return incidents;
}

/**
 * Removes incidents for good, in the caller's transaction, with what removal
 * needs: their rows and timelines, and the audit row of what retention removed.
 */
export async function removeIncidents(ctx: DomainContext, trx: Kysely<Database>, removal: IncidentRemoval): Promise<void> {
  await deleteRemoved(trx, removal);
  const audit = removalAuditEntry(removal);
  if (audit) await recordAudit(ctx, trx, audit);
}
