import type { Expression, Kysely, Selectable } from 'kysely';
import type { ChannelSubscriptionsTable, Database } from '../../db/schema.js';
import type { ChannelRef } from '../model/channel.js';
import { channelStream } from '../model/channel.js';
import type { Incident, IncidentEvent } from '../model/incident.js';
import type { ServiceStatus } from '../model/service.js';
import { serviceTrackerUrl } from '../model/service.js';
import type { ChatMember, IncidentAnnouncement, StatusChangeAnnouncement } from './announcement.js';
import type { OutboxRow } from './enqueue.js';

export type ChannelRow = Pick<Selectable<ChannelSubscriptionsTable>, 'platform' | 'workspace_id' | 'channel_id'>;
/** A channel following a service: of any company that follows it. */
export type ServiceChannelRow = ChannelRow & Pick<Selectable<ChannelSubscriptionsTable>, 'company_id'>;

/** The channels following the company's incidents; order by `id`. */
export const channelsFollowingIncidentsQuery = (db: Kysely<Database>, company: number | Expression<number>) =>
  db
    .selectFrom('channel_subscriptions')
    .select(['channel_subscriptions.id', 'platform', 'workspace_id', 'channel_id'])
    .where('channel_subscriptions.company_id', '=', company)
    .where('kind', '=', 'incidents');

/** The channels following a service; order by `id`. */
export const channelsFollowingServiceQuery = (db: Kysely<Database>, service: number | Expression<number>) =>
  db
    .selectFrom('channel_subscriptions')
    .select(['channel_subscriptions.id', 'platform', 'workspace_id', 'channel_id', 'channel_subscriptions.company_id'])
    .where('kind', '=', 'service')
    .where('channel_subscriptions.service_id', '=', service);

const toChannel = (r: ChannelRow): ChannelRef => ({ platform: r.platform, workspaceId: r.workspace_id, channelId: r.channel_id });

export interface IncidentChange {
  event: IncidentEvent;
  incident: Incident;
  /** Whether the change posted an update (shown as a reply under the incident's message). */
  update: boolean;
  publicUrl: string;
  now: number;
  /** Who leads the incident, shown in its message. */
  lead?: ChatMember | null;
}

function incidentAnnouncement(channel: ChannelRef, change: IncidentChange, source: IncidentAnnouncement['source']): IncidentAnnouncement {
  const { incident } = change;
  const latest = incident.updates.at(-1) ?? null;
  return {
    kind: 'incident',
    event: change.event,
    channel,
    source,
    incident: {
      id: incident.id,
      title: incident.title,
      severity: incident.status,
      resolved: incident.resolved,
      stage: latest?.stage ?? null,
      description: incident.description,
      service: {
        id: incident.serviceId,
        name: incident.serviceName,
        urlname: incident.serviceUrlname,
        trackerUrl: serviceTrackerUrl(change.publicUrl, incident.serviceUrlname),
      },
      url: incident.url,
      trackerUrl: incident.trackerUrl,
      components: incident.components,
      createdAt: incident.createdAt.toISOString(),
      updatedAt: incident.updatedAt.toISOString(),
      resolvedAt: incident.resolvedAt?.toISOString() ?? null,
      lead: change.lead ?? null,
    },
    update: change.update && latest ? { stage: latest.stage, description: latest.description, createdAt: latest.createdAt.toISOString() } : null,
  };
}

/** One announcement per channel, of an incident's change. */
export function incidentAnnouncementRows(channels: readonly ServiceChannelRow[], change: IncidentChange, source: IncidentAnnouncement['source']): OutboxRow[] {
  return channels.map((row) => {
    const channel = toChannel(row);
    return {
      companyId: row.company_id,
      subscriberId: null,
      stream: channelStream(channel),
      event: `incident.${change.event}`,
      payload: incidentAnnouncement(channel, change, source),
      now: change.now,
    };
  });
}

export interface StatusChange {
  service: { id: number; name: string; urlname: string };
  publicUrl: string;
  from: ServiceStatus;
  to: ServiceStatus;
  cause: string | null;
  now: number;
}

/** When a service's status changed: one message to every channel following the service; none when it did not. */
export function statusChangeRows(channels: readonly ServiceChannelRow[], args: StatusChange): OutboxRow[] {
  if (args.from === args.to) return [];
  return channels.map((row) => {
    const channel = toChannel(row);
    const announcement: StatusChangeAnnouncement = {
      kind: 'status_change',
      channel,
      service: { ...args.service, trackerUrl: serviceTrackerUrl(args.publicUrl, args.service.urlname) },
      from: args.from,
      to: args.to,
      at: new Date(args.now).toISOString(),
      cause: args.cause,
    };
    return {
      companyId: row.company_id,
      subscriberId: null,
      stream: channelStream(channel),
      event: 'service.status_changed',
      payload: announcement,
      now: args.now,
    };
  });
}
