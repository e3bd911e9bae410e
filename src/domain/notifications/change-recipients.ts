import { sql } from 'kysely';
import type { Expression, Kysely } from 'kysely';
import { jsonRows, rowsOf } from '../../db/dialect.js';
import type { JsonRows } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import { channelsFollowingIncidentsQuery, channelsFollowingServiceQuery } from './channel-outbox.js';
import type { ChannelRow, ServiceChannelRow } from './channel-outbox.js';
import { confirmedSubscribersQuery } from './email-notifications.js';
import type { EmailSubscriberRow } from './email-notifications.js';
import { destinationsOfCompanyQuery } from './notify-destination.js';
import type { DestinationRow } from './notify-destination.js';
import { subscribersOfServiceQuery } from './outbox.js';
import type { SubscriberRow } from './outbox.js';

/** Everyone a change of a company's service's incidents may be told to. */
export interface ChangeRecipients {
  /** Subscribers of the company's pages showing the service. */
  webhooks: SubscriberRow[];
  emails: EmailSubscriberRow[];
  /** Channels following the company's incidents. */
  incidentChannels: ServiceChannelRow[];
  /** Channels following the service, told when its status moves. */
  serviceChannels: ServiceChannelRow[];
  /** The company's paging and chat destinations (PagerDuty, Opsgenie, Teams, Telegram). */
  destinations: DestinationRow[];
}

export interface RecipientColumns {
  webhooks: JsonRows<SubscriberRow>;
  emails: JsonRows<EmailSubscriberRow>;
  incident_channels: JsonRows<ChannelRow & { id: number }>;
  service_channels: JsonRows<ServiceChannelRow & { id: number }>;
  destinations: JsonRows<DestinationRow>;
}

/**
 * The recipients of a change of the service in scope (`services.id`), as
 * columns of the query that reads the change's other facts: one statement
 * instead of one per list. Read them with `recipientsOf`.
 */
export function recipientColumns(db: Kysely<Database>, company: number | Expression<number>) {
  const service = sql.ref<number>('services.id');
  return [
    jsonRows(db, subscribersOfServiceQuery(db, service, company), ['id', 'page_id', 'page_name', 'page_url'], 'id').as('webhooks'),
    jsonRows(db, confirmedSubscribersQuery(db, service, company), ['id', 'services', 'page_id', 'page_name', 'page_url'], 'id').as('emails'),
    jsonRows(db, channelsFollowingIncidentsQuery(db, company), ['id', 'platform', 'workspace_id', 'channel_id'], 'id').as('incident_channels'),
    jsonRows(db, channelsFollowingServiceQuery(db, service), ['id', 'platform', 'workspace_id', 'channel_id', 'company_id'], 'id').as('service_channels'),
    jsonRows(db, destinationsOfCompanyQuery(db, company), ['id', 'kind'], 'id').as('destinations'),
  ] as const;
}

export function recipientsOf(row: RecipientColumns, companyId: number): ChangeRecipients {
  return {
    webhooks: rowsOf(row.webhooks),
    emails: rowsOf(row.emails),
    incidentChannels: rowsOf(row.incident_channels).map((c) => ({ ...c, company_id: companyId })),
    serviceChannels: rowsOf(row.service_channels),
    destinations: rowsOf(row.destinations).map((d) => ({ id: Number(d.id), kind: d.kind })),
  };
}
