import type { Kysely } from 'kysely';
import { prepared } from '../../db/prepared.js';
import { enqueueEmailNotifications } from './email-notifications.js';
import { enqueue } from './enqueue.js';
import type { Database } from '../../db/schema.js';
import type { Company } from '../companies/company.js';
import type { Incident, IncidentEvent } from '../incidents/incident.js';
import type { ServiceStatus } from '../services/service.js';

/** What a subscriber receives about an incident; stored as the outbox row's payload. */
export interface IncidentNotification {
  event: `incident.${IncidentEvent}`;
  occurred_at: string;
  status_page: { id: number; name: string; url: string };
  service: { id: number; name: string; urlname: string; status: ServiceStatus };
  incident: {
    id: number;
    title: string;
    status: string;
    resolved: boolean;
    resolution_stage: string | null;
    description: string;
    url: string | null;
    tracker_url: string;
    created_at: string;
    updated_at: string;
    resolved_at: string | null;
  };
}

const subscribersOfService = prepared<
  'service' | 'company',
  { id: number; page_id: number; page_name: string; page_url: string }
>((db, p) =>
  db
    .selectFrom('subscribers')
    .innerJoin('status_pages', 'status_pages.id', 'subscribers.status_page_id')
    .innerJoin('status_page_services', 'status_page_services.status_page_id', 'status_pages.id')
    .select(['subscribers.id', 'status_pages.id as page_id', 'status_pages.name as page_name', 'status_pages.url as page_url'])
    .where('status_page_services.service_id', '=', p.service)
    .where('status_pages.company_id', '=', p.company)
    .orderBy('subscribers.id'),
);

export const subscriberStream = (subscriberId: number): string => `subscriber:${subscriberId}`;

/**
 * One pending outbox row per subscriber (webhook, or confirmed email address)
 * of every status page showing the incident's service, when the company's
 * settings ask for this event.
 * Runs inside the transaction that made the change, so both commit or neither.
 */
export async function enqueueIncidentNotifications(
  trx: Kysely<Database>,
  args: { company: Company; event: IncidentEvent; incident: Incident; serviceStatus: ServiceStatus; now: number },
): Promise<number> {
  const { company, event, incident, serviceStatus, now } = args;
  if (!company.notifyOn.includes(event)) return 0;

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
  const subscribers = await subscribersOfService(trx, { service: incident.serviceId, company: company.id });
  const rows = subscribers.map((s) => {
    const payload = notificationFor({ id: s.page_id, name: s.page_name, url: s.page_url });
    return { companyId: company.id, subscriberId: s.id, stream: subscriberStream(s.id), event: payload.event, payload, now };
  });
  for (const row of rows) await enqueue(trx, row);
  const mailed = await enqueueEmailNotifications(trx, { companyId: company.id, serviceId: incident.serviceId, notificationFor, now });
  return rows.length + mailed;
}
