import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ChannelRef } from '../model/channel.js';
import { channelStream } from '../model/channel.js';
import type { DomainContext } from '../context.js';
import type { Maintenance, MaintenanceEvent } from '../model/maintenance.js';
import type { MaintenanceNotification } from './maintenance-payload.js';
import { channelsFollowingServiceQuery } from './channel-outbox.js';
import type { ServiceChannelRow } from './channel-outbox.js';
import { confirmedSubscribersQuery, emailNotificationRows } from './email-notifications.js';
import type { EmailSubscriberRow } from './email-notifications.js';
import { outboxWrites, queuable } from './enqueue.js';
import type { OutboxRow } from './enqueue.js';
import type { MaintenanceAnnouncement } from './announcement.js';
import { subscriberStream, subscribersOfServiceQuery } from './outbox.js';
import type { SubscriberRow } from './outbox.js';

/** Everyone a change of a maintenance is told to: each once, however many of its services they see. */
interface MaintenanceRecipients {
  webhooks: (SubscriberRow & { serviceIds: number[] })[];
  emails: (EmailSubscriberRow & { serviceIds: number[] })[];
  channels: ServiceChannelRow[];
}

async function recipientsOf(trx: Kysely<Database>, maintenance: Maintenance): Promise<MaintenanceRecipients> {
  const webhooks = new Map<number, SubscriberRow & { serviceIds: number[] }>();
  const emails = new Map<number, EmailSubscriberRow & { serviceIds: number[] }>();
  const channels = new Map<string, ServiceChannelRow>();
  for (const service of maintenance.services) {
    const [hooks, mails, following] = await Promise.all([
      subscribersOfServiceQuery(trx, service.id, maintenance.companyId).orderBy('subscribers.id').execute(),
      confirmedSubscribersQuery(trx, service.id, maintenance.companyId).orderBy('email_subscribers.id').execute(),
      channelsFollowingServiceQuery(trx, service.id).orderBy('channel_subscriptions.id').execute(),
    ]);
    for (const h of hooks) {
      const known = webhooks.get(h.id) ?? { ...h, serviceIds: [] };
      known.serviceIds.push(service.id);
      webhooks.set(h.id, known);
    }
    for (const m of mails) {
      const known = emails.get(m.id) ?? { ...m, serviceIds: [] };
      known.serviceIds.push(service.id);
      emails.set(m.id, known);
    }
    for (const c of following) channels.set(`${c.platform}:${c.workspace_id}:${c.channel_id}`, c);
  }
  return { webhooks: [...webhooks.values()], emails: [...emails.values()], channels: [...channels.values()] };
}

/**
 * The outbox rows of one event of a maintenance: one per webhook and confirmed
 * email subscriber of the company's pages showing any of its services (an
 * address that chose services hears of those only), and one per chat channel
 * following any of them. Delivered by the same publishers as incidents' rows.
 */
export async function maintenanceNotificationRows(
  ctx: Pick<DomainContext, 'chatOff'>,
  trx: Kysely<Database>,
  maintenance: Maintenance,
  event: MaintenanceEvent,
  now: number,
): Promise<OutboxRow[]> {
  const recipients = await recipientsOf(trx, maintenance);
  const latest = event === 'updated' ? null : (maintenance.updates.at(-1) ?? null);
  const occurredAt = new Date(now).toISOString();
  const described = {
    id: maintenance.id,
    title: maintenance.title,
    description: maintenance.description,
    status: maintenance.status,
    starts_at: maintenance.startsAt.toISOString(),
    ends_at: maintenance.endsAt.toISOString(),
    tracker_url: maintenance.trackerUrl,
    update: latest && { status: latest.status, description: latest.description, created_at: latest.createdAt.toISOString() },
  };
  const notificationFor = (page: MaintenanceNotification['status_page'], serviceIds: readonly number[]): MaintenanceNotification => ({
    event: `maintenance.${event}`,
    occurred_at: occurredAt,
    status_page: page,
    services: maintenance.services.filter((s) => serviceIds.includes(s.id)),
    maintenance: described,
  });
  const rows: OutboxRow[] = recipients.webhooks.map((s) => {
    const payload = notificationFor({ id: s.page_id, name: s.page_name, url: s.page_url }, s.serviceIds);
    return { companyId: maintenance.companyId, subscriberId: s.id, stream: subscriberStream(s.id), event: payload.event, payload, now };
  });
  for (const s of recipients.emails) {
    rows.push(
      ...emailNotificationRows([s], {
        companyId: maintenance.companyId,
        serviceId: s.serviceIds,
        notificationFor: (page) => notificationFor(page, s.serviceIds),
        now,
      }),
    );
  }
  for (const row of recipients.channels) {
    const channel: ChannelRef = { platform: row.platform, workspaceId: row.workspace_id, channelId: row.channel_id };
    const announcement: MaintenanceAnnouncement = {
      kind: 'maintenance',
      event,
      channel,
      maintenance: {
        id: maintenance.id,
        title: maintenance.title,
        description: maintenance.description,
        status: maintenance.status,
        startsAt: described.starts_at,
        endsAt: described.ends_at,
        trackerUrl: maintenance.trackerUrl,
        services: maintenance.services,
      },
      update: latest && { status: latest.status, description: latest.description, createdAt: latest.createdAt.toISOString() },
    };
    rows.push({ companyId: row.company_id, subscriberId: null, stream: channelStream(channel), event: `maintenance.${event}`, payload: announcement, now });
  }
  return rows.filter((row) => queuable(ctx, row.stream));
}

/** Queues the rows of one event of a maintenance, in the transaction that made it. */
export async function enqueueMaintenanceNotifications(
  ctx: Pick<DomainContext, 'chatOff'>,
  trx: Kysely<Database>,
  maintenance: Maintenance,
  event: MaintenanceEvent,
  now: number,
): Promise<void> {
  for (const write of outboxWrites(trx, await maintenanceNotificationRows(ctx, trx, maintenance, event, now))) await trx.executeQuery(write);
}
