import type { ChatPlatform } from '../../db/schema.js';
import { incidentLead } from '../chat/incident-lead.js';
import { incidentNotes } from '../chat/incident-notes.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import type { Changes } from '../audit/audit-trail.js';
import { EMAIL_STREAM_PREFIX } from '../notifications/email-notifications.js';
import type { Incident, IncidentUpdate } from '../model/incident.js';
import { getIncident } from './incident-service.js';

/** One line of a postmortem's timeline. */
export interface TimelineEntry {
  at: Date;
  kind: 'update' | 'change' | 'notification' | 'note';
  text: string;
}

/** What a postmortem is written from: the incident, who led it, and everything that happened to it, oldest first. */
export interface Postmortem {
  incident: Incident;
  /** Who led the response, as chat names them; null while nobody was named. */
  lead: string | null;
  timeline: TimelineEntry[];
}

/** Notifications read for one incident at most: a timeline, not an export. */
const MAX_NOTIFICATIONS = 2_000;

/**
 * The postmortem of an incident the company may read (as GET /incidents/:id):
 * its updates, the changes the audit trail recorded and the notifications the
 * outbox queued for it, in the order they happened.
 */
export async function getPostmortem(ctx: DomainContext, company: Company, id: number): Promise<Postmortem> {
  const incident = await getIncident(ctx, company, id);
  const [audit, notifications, lead, notes] = await Promise.all([
    auditRows(ctx, company, id),
    notificationEntries(ctx, company, incident),
    incidentLead(ctx.db, id),
    incidentNotes(ctx.db, id),
  ]);
  const noted = notes.map((n): TimelineEntry => ({ at: n.createdAt, kind: 'note', text: `Note by ${memberName(n.platform, n.authorId)}: ${n.text}` }));
  // A note is shown as itself, not as the audit row that recorded it.
  const changes = changeEntries(
    audit.filter((row) => row.action !== 'incident.note'),
    incident.updates,
  );
  const timeline = [...changes, ...noted, ...notifications].sort(
    (a, b) => a.at.getTime() - b.at.getTime() || (a.kind === 'notification' ? 1 : 0) - (b.kind === 'notification' ? 1 : 0),
  );
  return { incident, lead: lead === null ? null : memberName(lead.platform, lead.userId), timeline };
}

const VERBS: Record<string, string> = {
  'incident.create': 'Opened',
  'incident.update': 'Changed',
  'incident.delete': 'Deleted',
  'incident.lead': 'Lead named',
  'incident.room': 'Room asked for',
};

/** A chat user as a postmortem names them: the platform and their id, which chat shows as a mention. */
const memberName = (platform: ChatPlatform, userId: string): string => `${platform === 'slack' ? 'Slack' : 'Discord'} user ${userId}`;

/** What an audit row says, without the update it posted (the timeline shows updates themselves). */
function changeText(action: string, actor: string, changes: Changes): string {
  const parts: string[] = [];
  const { status, title, resolved } = changes;
  if (action === 'incident.update') {
    if (resolved && resolved.to === true) parts.push('resolved');
    if (resolved && resolved.to === false) parts.push('reopened');
    if (status && 'from' in status) parts.push(`severity ${String(status.from)} → ${String(status.to)}`);
    if (title && 'from' in title) parts.push(`title ${JSON.stringify(title.from)} → ${JSON.stringify(title.to)}`);
    if (parts.length === 0) return `Updated by ${actor}`;
    const [first, ...rest] = parts;
    return `${first!.charAt(0).toUpperCase()}${first!.slice(1)}${rest.length ? `, ${rest.join(', ')}` : ''} by ${actor}`;
  }
  return `${VERBS[action] ?? action} by ${actor}`;
}

interface AuditRow {
  at: Date;
  actor: string;
  action: string;
  changes: Changes;
}

async function auditRows(ctx: DomainContext, company: Company, id: number): Promise<AuditRow[]> {
  const rows = await ctx.db
    .selectFrom('audit_events')
    .select(['at', 'actor', 'action', 'changes'])
    .where('target_type', '=', 'incident')
    .where('target_id', '=', String(id))
    .where((eb) => eb.or([eb('company_id', '=', company.id), eb('company_id', 'is', null)]))
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ at: new Date(Number(r.at)), actor: r.actor, action: r.action, changes: JSON.parse(r.changes) as Changes }));
}

/** How long after its update a change's audit row may be written (the same transaction, a moment later). */
const SAME_CHANGE_MS = 60_000;

const updateText = (u: IncidentUpdate): string => `${u.stage}${u.description ? `: ${u.description}` : ''}`;

/**
 * The changes and the updates, one entry for a change that posted an update
 * (at the update's time): who made it, what it changed, and the update.
 */
function changeEntries(audit: readonly AuditRow[], updates: readonly IncidentUpdate[]): TimelineEntry[] {
  const left = [...updates];
  const entries: TimelineEntry[] = [];
  for (const row of audit) {
    const posted =
      row.action === 'incident.create' ? { description: row.changes.description?.to } : (row.changes.update?.to as { description?: unknown } | undefined);
    const i = posted
      ? left.findIndex(
          (u) => u.description === posted.description && u.createdAt.getTime() <= row.at.getTime() && row.at.getTime() - u.createdAt.getTime() < SAME_CHANGE_MS,
        )
      : -1;
    const text = changeText(row.action, row.actor, row.changes);
    if (i === -1) {
      entries.push({ at: row.at, kind: 'change', text });
      continue;
    }
    const [update] = left.splice(i, 1);
    entries.push({ at: update!.createdAt, kind: 'change', text: `${text} — ${updateText(update!)}` });
  }
  for (const u of left) entries.push({ at: u.createdAt, kind: 'update', text: `Update — ${updateText(u)}` });
  return entries;
}

/** Where a notification went, as people name it. */
function destination(stream: string, webhooks: Map<number, string>, emails: Map<number, string>): string {
  const [kind, a, b] = stream.split(':');
  if (kind === 'subscriber') return `webhook ${webhooks.get(Number(a)) ?? `#${a}`}`;
  if (`${kind}:` === EMAIL_STREAM_PREFIX) return `email ${emails.get(Number(a)) ?? `#${a}`}`;
  if (kind === 'slack') return `Slack channel ${b}`;
  if (kind === 'discord') return `Discord channel ${b}`;
  return stream;
}

const STATE_WORDS = { sent: 'sent', pending: 'queued', dead: 'failed' } as const;

async function notificationEntries(ctx: DomainContext, company: Company, incident: Incident): Promise<TimelineEntry[]> {
  const rows = await ctx.db
    .selectFrom('outbox')
    .select(['stream', 'event', 'payload', 'state', 'created_at', 'sent_at'])
    .where('company_id', '=', company.id)
    // Queued in the transaction of a change: between the incident's first change and its last.
    .where('created_at', '>=', incident.createdAt.getTime())
    .where('created_at', '<=', incident.updatedAt.getTime())
    .orderBy('id')
    .limit(MAX_NOTIFICATIONS * 4)
    .execute();
  const mine = rows.filter((r) => (JSON.parse(r.payload) as { incident?: { id?: unknown } }).incident?.id === incident.id).slice(0, MAX_NOTIFICATIONS);
  if (mine.length === 0) return [];
  const ids = (prefix: string) => [...new Set(mine.filter((r) => r.stream.startsWith(prefix)).map((r) => Number(r.stream.slice(prefix.length))))];
  const [hooks, mails] = [ids('subscriber:'), ids(EMAIL_STREAM_PREFIX)];
  const webhooks = new Map(
    (hooks.length ? await ctx.db.selectFrom('subscribers').select(['id', 'target']).where('id', 'in', hooks).execute() : []).map((r) => [
      Number(r.id),
      r.target,
    ]),
  );
  const emails = new Map(
    (mails.length ? await ctx.db.selectFrom('email_subscribers').select(['id', 'email']).where('id', 'in', mails).execute() : []).map((r) => [
      Number(r.id),
      r.email,
    ]),
  );
  return mine.map((r) => ({
    at: new Date(Number(r.state === 'sent' && r.sent_at !== null ? r.sent_at : r.created_at)),
    kind: 'notification',
    text: `Notification ${STATE_WORDS[r.state]}: ${r.event} to ${destination(r.stream, webhooks, emails)}`,
  }));
}
