import type { EmailPayload } from '../domain/notifications/email-notifications.js';
import type { IncidentNotification } from '../domain/notifications/incident-notification.js';
import type { MaintenanceNotification } from '../domain/notifications/maintenance-payload.js';

/** The threading headers of one mail (nodemailer's `messageId`, `inReplyTo`, `references`). */
export interface MailThreading {
  messageId: string;
  inReplyTo?: string;
  references?: string;
}

/** The event that starts an item's thread: its mail bears the thread's id. */
const FIRST: Record<string, string> = { incident: 'incident.created', maintenance: 'maintenance.scheduled' };

/**
 * The Message-ID of a subscriber's mail, and for an incident's or a
 * maintenance's mail the one its thread hangs from. Each names the database
 * (`databaseId`: ids start at 1 in every new database, and threads of two
 * would meet in a mail reader), the subscriber, and the outbox row, so that a
 * mail sent again after a lost answer is known as the same. The first mail of
 * an item bears the thread's id; every later one replies to it, whether or not
 * that first mail was sent (readers thread on `References` alone).
 */
export function mailThreading(input: { databaseId: string; deliveryId: number; subscriberId: number; host: string; payload: EmailPayload }): MailThreading {
  const { databaseId, deliveryId, subscriberId, host, payload } = input;
  const id = (local: string): string => `<statusbot.${databaseId}.${local}.${subscriberId}@${host}>`;
  const item = itemOf(payload);
  if (!item) return { messageId: id(`mail-${deliveryId}`) };
  const thread = id(`${item.kind}-${item.id}`);
  if (payload.event === FIRST[item.kind]) return { messageId: thread };
  return { messageId: id(`mail-${deliveryId}`), inReplyTo: thread, references: thread };
}

function itemOf(payload: EmailPayload): { kind: 'incident' | 'maintenance'; id: number } | null {
  if (payload.event.startsWith('incident.')) return { kind: 'incident', id: (payload as IncidentNotification).incident.id };
  if (payload.event.startsWith('maintenance.')) return { kind: 'maintenance', id: (payload as MaintenanceNotification).maintenance.id };
  return null;
}
