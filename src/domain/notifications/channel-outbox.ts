import type { Kysely, Selectable } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { ChannelSubscriptionsTable, Database } from '../../db/schema.js';
import type { ChannelRef } from '../chat/chat.js';
import { channelStream } from '../chat/chat.js';
import type { Incident, IncidentEvent } from '../incidents/incident.js';
import type { ServiceStatus } from '../services/service.js';
import { serviceTrackerUrl } from '../services/service.js';
import type { IncidentAnnouncement, StatusChangeAnnouncement } from './announcement.js';
import { enqueue } from './enqueue.js';

type ChannelRow = Pick<Selectable<ChannelSubscriptionsTable>, 'platform' | 'workspace_id' | 'channel_id'>;

const channelsFollowingIncidents = prepared<'company', ChannelRow>((db, p) =>
  db
    .selectFrom('channel_subscriptions')
    .select(['platform', 'workspace_id', 'channel_id'])
    .where('company_id', '=', p.company)
    .where('kind', '=', 'incidents')
    .orderBy('id'),
);

const channelsFollowingService = prepared<'service', ChannelRow & Pick<Selectable<ChannelSubscriptionsTable>, 'company_id'>>((db, p) =>
  db
    .selectFrom('channel_subscriptions')
    .select(['platform', 'workspace_id', 'channel_id', 'company_id'])
    .where('kind', '=', 'service')
    .where('service_id', '=', p.service)
    .orderBy('id'),
);

const toChannel = (r: ChannelRow): ChannelRef => ({ platform: r.platform, workspaceId: r.workspace_id, channelId: r.channel_id });

interface IncidentChange {
  event: IncidentEvent;
  incident: Incident;
  /** Whether the change posted an update (shown as a reply under the incident's message). */
  update: boolean;
  publicUrl: string;
  now: number;
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
    },
    update:
      change.update && latest ? { stage: latest.stage, description: latest.description, createdAt: latest.createdAt.toISOString() } : null,
  };
}

async function enqueueTo(
  trx: Kysely<Database>,
  channels: readonly (ChannelRow & { company_id: number })[],
  change: IncidentChange,
  source: IncidentAnnouncement['source'],
): Promise<void> {
  for (const row of channels) {
    const channel = toChannel(row);
    await enqueue(trx, {
      companyId: row.company_id,
      subscriberId: null,
      stream: channelStream(channel),
      event: `incident.${change.event}`,
      payload: incidentAnnouncement(channel, change, source),
      now: change.now,
    });
  }
}

/** One announcement per channel following the company's incidents; in the transaction of the change. */
export async function enqueueIncidentAnnouncements(trx: Kysely<Database>, args: IncidentChange & { companyId: number }): Promise<void> {
  const channels = await channelsFollowingIncidents(trx, { company: args.companyId });
  await enqueueTo(trx, channels.map((c) => ({ ...c, company_id: args.companyId })), args, 'company');
}

/**
 * One announcement per channel following a catalog service, of an incident
 * its vendor reported (`vendor`) or its users did (`users`, unconfirmed).
 */
export async function enqueueServiceIncidentAnnouncements(
  trx: Kysely<Database>,
  args: IncidentChange & { source: 'vendor' | 'users' },
): Promise<void> {
  const channels = await channelsFollowingService(trx, { service: args.incident.serviceId });
  await enqueueTo(trx, channels, args, args.source);
}

/** When a service's status changed: one message to every channel following the service. */
export async function enqueueStatusChange(
  trx: Kysely<Database>,
  args: {
    service: { id: number; name: string; urlname: string };
    publicUrl: string;
    from: ServiceStatus;
    to: ServiceStatus;
    cause: string | null;
    now: number;
  },
): Promise<void> {
  if (args.from === args.to) return;
  const channels = await channelsFollowingService(trx, { service: args.service.id });
  for (const row of channels) {
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
    await enqueue(trx, {
      companyId: row.company_id,
      subscriberId: null,
      stream: channelStream(channel),
      event: 'service.status_changed',
      payload: announcement,
      now: args.now,
    });
  }
}
