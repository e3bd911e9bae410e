import type { Expression, Kysely } from 'kysely';
import { emailNotificationRows } from './email-notifications.js';
import type { EmailSubscriberRow } from './email-notifications.js';
import type { OutboxRow } from './enqueue.js';
import type { IncidentNotification } from './incident-notification.js';
import type { Database } from '../../db/schema.js';
import type { Company } from '../model/company.js';
import type { Incident, IncidentEvent } from '../model/incident.js';
import type { ServiceStatus } from '../model/service.js';

export type SubscriberRow = { id: number; page_id: number; page_name: string; page_url: string };

/** The webhook subscribers of the company's pages that show a service; order by `id`. */
export const subscribersOfServiceQuery = (db: Kysely<Database>, service: number | Expression<number>, company: number | Expression<number>) =>
  db
    .selectFrom('subscribers')
    .innerJoin('status_pages', 'status_pages.id', 'subscribers.status_page_id')
    .innerJoin('status_page_services', 'status_page_services.status_page_id', 'status_pages.id')
    .select(['subscribers.id', 'status_pages.id as page_id', 'status_pages.name as page_name', 'status_pages.url as page_url'])
    .where('status_page_services.service_id', '=', service)
    .where('status_pages.company_id', '=', company);

export const subscriberStream = (subscriberId: number): string => `subscriber:${subscriberId}`;

/**
 * One outbox row per subscriber (webhook, then confirmed email address) of
 * every status page of the company showing the incident's service, when the
 * company's settings ask for this event.
 */
export function incidentNotificationRows(
  subscribers: { webhooks: readonly SubscriberRow[]; emails: readonly EmailSubscriberRow[] },
  args: { company: Company; event: IncidentEvent; incident: Incident; serviceStatus: ServiceStatus; now: number },
): OutboxRow[] {
  const { company, event, incident, serviceStatus, now } = args;
  if (!company.notifyOn.includes(event)) return [];

  const latest = incident.updates.at(-1);
  const occurredAt = new Date(now).toISOString();
  const notificationFor = (page: IncidentNotification['status_page']): IncidentNotification => ({
    event: `incident.${event}`,
    occurred_at: occurredAt,
    status_page: page,
    service: { id: incident.serviceId, name: incident.serviceName, urlname: incident.serviceUrlname, status: serviceStatus },
    incident: {
      id: incident.id,
      title: incident.title,
      status: incident.status,
      resolved: incident.resolved,
      resolution_stage: latest?.stage ?? null,
      description: incident.description,
      url: incident.url,
      tracker_url: incident.trackerUrl,
      created_at: incident.createdAt.toISOString(),
      updated_at: incident.updatedAt.toISOString(),
      resolved_at: incident.resolvedAt?.toISOString() ?? null,
    },
  });
  const rows: OutboxRow[] = subscribers.webhooks.map((s) => {
    const payload = notificationFor({ id: s.page_id, name: s.page_name, url: s.page_url });
    return { companyId: company.id, subscriberId: s.id, stream: subscriberStream(s.id), event: payload.event, payload, now };
  });
  rows.push(...emailNotificationRows(subscribers.emails, { companyId: company.id, serviceId: incident.serviceId, notificationFor, now }));
  return rows;
}
