import type { CompiledQuery, Insertable, Kysely } from 'kysely';
import { prepared } from '../../db/prepared.js';
import { deferInsert } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { PAGE_DEFAULT } from '../page-limit.js';
import { parseInput } from '../validation.js';
import { auditPageInput } from './audit-input.js';

/** What changed in a field: absent `from` for a field set by a creation, absent `to` for one removed. */
export type Changes = Record<string, { from?: unknown; to?: unknown }>;

/** One change, as the use case that made it describes it. */
export interface AuditEntry {
  /** Whose data changed; null for changes of no company's (the catalog, a config's own rows). */
  companyId: number | null;
  /** `incident.create`, `api_key.revoke`, …: `<target type>.<verb>`. */
  action: string;
  targetType: string;
  targetId: string | number;
  changes?: Changes;
}

export interface AuditEvent {
  id: number;
  companyId: number | null;
  at: Date;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  requestId: string | null;
  changes: Changes;
}

const insertEvent = prepared<'at' | 'company' | 'actor' | 'action' | 'type' | 'target' | 'request' | 'changes', never>((db, p) =>
  db.insertInto('audit_events').values({
    at: p.at,
    company_id: p.company,
    actor: p.actor,
    action: p.action,
    target_type: p.type,
    target_id: p.target,
    request_id: p.request,
    changes: p.changes,
  }),
);

type AuditRow = Insertable<Database['audit_events']>;

function auditRow(ctx: DomainContext, entry: AuditEntry): AuditRow {
  return {
    at: ctx.clock.now().getTime(),
    company_id: entry.companyId,
    actor: ctx.acting.actor,
    action: entry.action,
    target_type: entry.targetType,
    target_id: String(entry.targetId),
    request_id: ctx.acting.requestId,
    changes: JSON.stringify(entry.changes ?? {}),
  };
}

const insertOf = (db: Kysely<Database>, row: AuditRow): CompiledQuery =>
  insertEvent.bind(db, {
    at: row.at,
    company: row.company_id ?? null,
    actor: row.actor,
    action: row.action,
    type: row.target_type,
    target: row.target_id,
    request: row.request_id ?? null,
    changes: row.changes,
  });

/**
 * The audit row of a change, to run in the change's own transaction, so that
 * both commit or neither; null when SQLite's writer takes the row to insert it with those of the
 * transaction's other changes before its commit (the changes of incidents,
 * made many a second: nothing reads their rows back in the transaction).
 * For writers that send several statements at once (see batchWrites).
 */
export function auditWrite(ctx: DomainContext, db: Kysely<Database>, entry: AuditEntry): CompiledQuery | null {
  const row = auditRow(ctx, entry);
  return deferInsert(db, 'audit_events', row) ? null : insertOf(db, row);
}

/** Writes the audit row of a change inside its transaction (`trx`), now. */
export async function recordAudit(ctx: DomainContext, trx: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await trx.executeQuery(insertOf(trx, auditRow(ctx, entry)));
}

/** The fields whose values differ between two states of a thing (compared as JSON). */
export function changesBetween(before: Record<string, unknown>, after: Record<string, unknown>): Changes {
  const changes: Changes = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const from = before[field];
    const to = after[field];
    if (JSON.stringify(from) === JSON.stringify(to)) continue;
    changes[field] = { ...(field in before ? { from } : {}), ...(field in after ? { to } : {}) };
  }
  return changes;
}

/** Every field of a new thing, as set by its creation. */
export const created = (fields: Record<string, unknown>): Changes => Object.fromEntries(Object.entries(fields).map(([field, to]) => [field, { to }]));

/** Every field of a thing that is gone. */
export const removed = (fields: Record<string, unknown>): Changes => Object.fromEntries(Object.entries(fields).map(([field, from]) => [field, { from }]));

/**
 * Audit events, newest first, older than the event `before` when given: the
 * company's (an API caller's), or every company's (the operator's CLI).
 */
export async function listAuditEvents(
  ctx: DomainContext,
  of: { company: Pick<Company, 'id'> } | { everyCompany: true },
  raw: unknown,
): Promise<{ events: AuditEvent[]; more: boolean }> {
  const page = parseInput(auditPageInput, raw, 'query');
  const limit = page.limit ?? PAGE_DEFAULT;
  let query = ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .orderBy('id', 'desc')
    .limit(limit + 1);
  if ('company' in of) query = query.where('company_id', '=', of.company.id);
  if (page.before !== undefined) query = query.where('id', '<', page.before);
  const rows = await query.execute();
  return {
    events: rows.slice(0, limit).map((r) => ({
      companyId: r.company_id === null ? null : Number(r.company_id),
      id: Number(r.id),
      at: new Date(Number(r.at)),
      actor: r.actor,
      action: r.action,
      targetType: r.target_type,
      targetId: r.target_id,
      requestId: r.request_id,
      changes: JSON.parse(r.changes) as Changes,
    })),
    more: rows.length > limit,
  };
}
