import type { Expression, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { enqueue } from './enqueue.js';
import type { OutboxRow } from './enqueue.js';
import type { IncidentNotification } from './incident-notification.js';
import type { MaintenanceNotification } from './maintenance-payload.js';

/**
 * Mail to one email subscriber goes out on a stream of its own, in order. The
 * subscriber is named by the stream: the outbox's `subscriber_id` refers to
 * webhook subscribers, so it stays null on these rows.
 */
export const EMAIL_STREAM_PREFIX = 'email:';
export const emailStream = (emailSubscriberId: number): string => `${EMAIL_STREAM_PREFIX}${emailSubscriberId}`;

/** The subscriber of an `email:` stream; null for any other stream. */
export function emailSubscriberOfStream(stream: string): number | null {
  if (!stream.startsWith(EMAIL_STREAM_PREFIX)) return null;
  const id = Number(stream.slice(EMAIL_STREAM_PREFIX.length));
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

export const CONFIRMATION_EVENT = 'subscription.confirm';

/** The mail that asks a new address to confirm; its link is made when it is sent, so that it runs 48 hours from then. */
export interface EmailConfirmation {
  event: typeof CONFIRMATION_EVENT;
  status_page: { id: number; name: string; url: string };
}

/** What an email subscriber's outbox row holds: an incident or maintenance notification (as webhooks get it), or the confirmation. */
export type EmailPayload = IncidentNotification | MaintenanceNotification | EmailConfirmation;

type PageRef = IncidentNotification['status_page'];

export type EmailSubscriberRow = { id: number; services: string | null; page_id: number; page_name: string; page_url: string };

/** The confirmed email subscribers of the company's pages that show a service; order by `id`. */
export const confirmedSubscribersQuery = (db: Kysely<Database>, service: number | Expression<number>, company: number | Expression<number>) =>
  db
    .selectFrom('email_subscribers')
    .innerJoin('status_pages', 'status_pages.id', 'email_subscribers.status_page_id')
    .innerJoin('status_page_services', 'status_page_services.status_page_id', 'status_pages.id')
    .select([
      'email_subscribers.id',
      'email_subscribers.services',
      'status_pages.id as page_id',
      'status_pages.name as page_name',
      'status_pages.url as page_url',
    ])
    .where('status_page_services.service_id', '=', service)
    .where('status_pages.company_id', '=', company)
    .where('email_subscribers.state', '=', 'confirmed');

/** Whether a subscriber's choice of services (JSON list of ids, null for all) takes in this one, or one of these. */
function follows(services: string | null, serviceId: number | readonly number[]): boolean {
  if (services === null) return true;
  const ids: unknown = JSON.parse(services);
  const wanted = typeof serviceId === 'number' ? [serviceId] : serviceId;
  return Array.isArray(ids) && wanted.some((id) => ids.includes(id));
}

/**
 * One mail per confirmed email subscriber of every page of the company that
 * shows the incident's service, unless the subscriber chose other services
 * (the caller checked the company's `notify_on`).
 */
export function emailNotificationRows(
  subscribers: readonly EmailSubscriberRow[],
  args: {
    companyId: number;
    serviceId: number | readonly number[];
    notificationFor: (page: PageRef) => IncidentNotification | MaintenanceNotification;
    now: number;
  },
): OutboxRow[] {
  const rows: OutboxRow[] = [];
  for (const s of subscribers) {
    if (!follows(s.services, args.serviceId)) continue;
    const payload: EmailPayload = args.notificationFor({ id: s.page_id, name: s.page_name, url: s.page_url });
    rows.push({ companyId: args.companyId, subscriberId: null, stream: emailStream(s.id), event: payload.event, payload, now: args.now });
  }
  return rows;
}

/** Queues the mail that asks an address to confirm its subscription. */
export async function enqueueConfirmation(trx: Kysely<Database>, args: { companyId: number; subscriberId: number; page: PageRef; now: number }): Promise<void> {
  const payload: EmailConfirmation = { event: CONFIRMATION_EVENT, status_page: args.page };
  await enqueue(trx, { companyId: args.companyId, subscriberId: null, stream: emailStream(args.subscriberId), event: payload.event, payload, now: args.now });
}
