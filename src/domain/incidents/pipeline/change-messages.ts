import type { ChannelRef } from '../../model/channel.js';
import { channelStream } from '../../model/channel.js';
import { roomSummaryRow } from '../../chat/incident-chat-roles.js';
import type { IncidentChatRoles } from '../../chat/incident-chat-roles.js';
import type { DomainContext } from '../../context.js';
import type { MonitorAnnouncement } from '../../notifications/announcement.js';
import { incidentAnnouncementRows, statusChangeRows } from '../../notifications/channel-outbox.js';
import { queuable } from '../../notifications/enqueue.js';
import type { OutboxRow } from '../../notifications/enqueue.js';
import { destinationRows, monitorDestinationRows } from '../../notifications/notify-destination.js';
import type { DestinationRow } from '../../notifications/notify-destination.js';
import { incidentNotificationRows } from '../../notifications/outbox.js';
import type { ServiceStatus } from '../../model/service.js';
import type { ChangeScope } from './change-scope.js';
import { defaultCause, isOwn, labelOf } from './change-rules.js';
import type { ChangeSource, MonitorIncidentChange, StoredChange, StoredMonitorIncident } from './incident-change.js';
import type { StatusMove } from './update-writes.js';

/*
 * Who is told of a change, and what: one outbox row per destination
 * concerned. Nothing is queued for a chat platform that is off here: it
 * would flood the channel once turned on.
 */

/** A message, and whether it is queued only while the scope's facts still hold (see ChangeScope.guarded). */
export interface Message {
  row: OutboxRow;
  guarded: boolean;
}

export interface MessageOptions {
  source: ChangeSource;
  now: number;
  /** What a status-change message gives as its cause; by default the title of the first open incident changed, else of the last. */
  cause?: (after: ServiceStatus) => string | null;
  /** False: a move of the service's status is told to nobody (a vendor's first read). */
  tellStatus?: boolean;
}

/** Every message of a service's incident changes, the service's status having moved as `move` says. */
export function incidentMessages(
  ctx: DomainContext,
  scope: ChangeScope,
  made: readonly StoredChange[],
  roles: ReadonlyMap<number, IncidentChatRoles>,
  move: StatusMove,
  options: MessageOptions,
): Message[] {
  const messages = made.filter((c) => !c.quiet).flatMap((change) => changeMessages(ctx, scope, change, roles, move.after, options));
  if (options.tellStatus !== false) messages.push(...statusMessages(ctx, scope, made, move, options));
  return messages.filter(({ row }) => queuable(ctx, row.stream));
}

/** The messages of one change of an incident. */
function changeMessages(
  ctx: DomainContext,
  scope: ChangeScope,
  change: StoredChange,
  roles: ReadonlyMap<number, IncidentChatRoles>,
  serviceStatus: ServiceStatus,
  { source, now }: MessageOptions,
): Message[] {
  const messages: Message[] = [];
  const own = isOwn(scope, change);
  const { event, incident } = change;
  if (own) {
    const subscribers = { webhooks: scope.recipients.webhooks, emails: scope.recipients.emails };
    for (const row of incidentNotificationRows(subscribers, { company: scope.company!, event, incident, serviceStatus, now })) {
      messages.push({ row, guarded: true });
    }
    // What a pager or chat destination is told does not depend on the service's status: queued whatever it is.
    const paged = destinationRows(scope.recipients.destinations, { companyId: scope.company!.id, event, incident, posted: change.posted.length > 0, now });
    for (const row of paged) messages.push({ row, guarded: false });
  }
  const role = own ? roles.get(incident.id) : undefined;
  const channels = own ? scope.recipients.incidentChannels : scope.recipients.serviceChannels;
  const announcement = { event, incident, update: change.posted.length > 0, publicUrl: ctx.publicUrl, now, lead: role?.lead ?? null };
  for (const row of incidentAnnouncementRows(role?.room ? [...channels, role.room] : channels, announcement, labelOf(source, own))) {
    messages.push({ row, guarded: false });
  }
  if (role?.room && event === 'resolved') messages.push({ row: roomSummaryRow(role.room, incident, role, now), guarded: false });
  return messages;
}

/** The message to every channel following the service, where its status moved. */
function statusMessages(ctx: DomainContext, scope: ChangeScope, made: readonly StoredChange[], move: StatusMove, options: MessageOptions): Message[] {
  const { service } = scope;
  const rows = statusChangeRows(scope.recipients.serviceChannels, {
    service: { id: service.id, name: service.name, urlname: service.urlname },
    publicUrl: ctx.publicUrl,
    from: move.before,
    to: move.after,
    cause: options.cause ? options.cause(move.after) : defaultCause(made),
    now: options.now,
  });
  return rows.map((row) => ({ row, guarded: true }));
}

/**
 * The messages of a monitor's change: the channels following the monitor
 * hear of it; the company's paging and chat destinations (PagerDuty,
 * Opsgenie, Teams, Telegram) of each incident it opened or resolved, as of
 * its own incidents.
 */
export function monitorMessages(
  ctx: DomainContext,
  change: MonitorIncidentChange,
  channels: readonly ChannelRef[],
  destinations: readonly DestinationRow[],
  incidents: readonly StoredMonitorIncident[],
  now: number,
): OutboxRow[] {
  const { monitor } = change;
  const rows: OutboxRow[] = [];
  for (const channel of channels) {
    if (!queuable(ctx, channelStream(channel))) continue;
    const announcement: MonitorAnnouncement = {
      kind: 'monitor',
      channel,
      monitor: { id: monitor.id, name: monitor.name, url: monitor.url },
      change: change.event,
      description: change.note,
      region: change.region,
      at: new Date(now).toISOString(),
    };
    rows.push({
      companyId: monitor.companyId,
      subscriberId: null,
      stream: channelStream(channel),
      event: `monitor.${change.event}`,
      payload: announcement,
      now,
    });
  }
  for (const incident of incidents) {
    const told = monitorDestinationRows(destinations, {
      companyId: monitor.companyId,
      event: change.event,
      monitor: { id: monitor.id, name: monitor.name, url: monitor.url || null },
      incident: { id: Number(incident.id), description: incident.description, createdAt: Number(incident.created_at) },
      url: monitor.url || ctx.publicUrl,
      note: change.note,
      now,
    });
    rows.push(...told);
  }
  return rows;
}
