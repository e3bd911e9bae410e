import type { Selectable } from 'kysely';
import type { IncidentsTable } from '../../../db/schema.js';
import { changesBetween, created, removed } from '../../audit/audit-trail.js';
import type { AuditEntry } from '../../audit/audit-trail.js';
import type { ChangeScope } from './change-scope.js';
import type { IncidentRemoval, MonitorIncidentChange, StoredChange } from './incident-change.js';

/* The audit row of each change: who changed what (the actor is the context's). */

/** The fields of an incident's state that its audit rows show. */
const auditedState = (row: Pick<Selectable<IncidentsTable>, 'title' | 'status' | 'resolved'>) => ({
  title: row.title,
  status: row.status,
  resolved: row.resolved === 1,
});

/** The audit row of a change of an incident. */
export function incidentAuditEntry(scope: ChangeScope, change: StoredChange): AuditEntry {
  const companyId = scope.service.company_id;
  const targetId = change.incident.id;
  if (change.event === 'created') {
    const row = change.after!;
    return {
      companyId,
      action: 'incident.create',
      targetType: 'incident',
      targetId,
      changes: created({ service_id: row.service_id, ...auditedState(row), description: row.description }),
    };
  }
  const before = change.before!;
  if (change.event === 'deleted') {
    return {
      companyId,
      action: 'incident.delete',
      targetType: 'incident',
      targetId,
      changes: removed({ service_id: before.service_id, ...auditedState(before) }),
    };
  }
  const last = change.posted.at(-1);
  return {
    companyId,
    action: 'incident.update',
    targetType: 'incident',
    targetId,
    changes: {
      ...changesBetween(auditedState(before), auditedState(change.after!)),
      ...(last ? { update: { to: { stage: last.stage, description: last.description } } } : {}),
    },
  };
}

/** The audit row of a monitor going down or recovering: of the monitor, whose incidents follow its status. */
export const monitorAuditEntry = (change: MonitorIncidentChange): AuditEntry => ({
  companyId: change.monitor.companyId,
  action: change.event === 'down' ? 'custom_monitor.down' : 'custom_monitor.recover',
  targetType: 'custom_monitor',
  targetId: change.monitor.id,
  changes: { status: change.status, ...(change.reason === undefined ? {} : { reason: { to: change.reason } }) },
});

/**
 * The audit row of a removal: retention's names the ids it removed; an
 * owner's removal has none of its own (the company's or services' removal
 * row says it, incidents and all).
 */
export function removalAuditEntry(removal: IncidentRemoval): AuditEntry | null {
  if (removal.cause !== 'expired' || removal.ids.length === 0) return null;
  const { ids } = removal;
  const target = removal.kind === 'incidents' ? 'incident' : 'monitor_incident';
  return {
    companyId: null,
    action: `${target}.expire`,
    targetType: target,
    targetId: ids.length === 1 ? ids[0]! : `${ids[0]}…${ids.at(-1)}`,
    changes: { ids: { from: [...ids] } },
  };
}
