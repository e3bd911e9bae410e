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

/** One announcement per channel following the company's incidents; in the transaction of the change. */
export async function enqueueIncidentAnnouncements(
  trx: Kysely<Database>,
  args: { companyId: number; event: IncidentEvent; incident: Incident; update: boolean; publicUrl: string; now: number },
): Promise<void> {
  const { incident, now } = args;
  const channels = await channelsFollowingIncidents(trx, { company: args.companyId });
  const latest = incident.updates.at(-1) ?? null;
  for (const row of channels) {
    const channel = toChannel(row);
    const announcement: IncidentAnnouncement = {
      kind: 'incident',
      event: args.event,
      channel,
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
          trackerUrl: serviceTrackerUrl(args.publicUrl, incident.serviceUrlname),
        },
        url: incident.url,
        trackerUrl: incident.trackerUrl,
        createdAt: incident.createdAt.toISOString(),
        updatedAt: incident.updatedAt.toISOString(),
        resolvedAt: incident.resolvedAt?.toISOString() ?? null,
      },
      update:
        args.update && latest
          ? { stage: latest.stage, description: latest.description, createdAt: latest.createdAt.toISOString() }
          : null,
    };
    await enqueue(trx, {
      companyId: args.companyId,
      subscriberId: null,
      stream: channelStream(channel),
      event: `incident.${args.event}`,
      payload: announcement,
      now,
    });
  }
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
