import nodemailer from 'nodemailer';
import type { NodemailerError } from 'nodemailer';
import type { DomainContext } from '../domain/context.js';
import { CONFIRMATION_EVENT, EMAIL_STREAM_PREFIX, emailSubscriberOfStream } from '../domain/notifications/email-notifications.js';
import type { EmailPayload } from '../domain/notifications/email-notifications.js';
import type { IncidentNotification } from '../domain/notifications/incident-notification.js';
import type { MaintenanceNotification } from '../domain/notifications/maintenance-payload.js';
import { databaseId } from '../domain/status-pages/database-id.js';
import { CONFIRM_TTL_MS, UNSUBSCRIBE_TTL_MS, signPageToken } from '../domain/status-pages/page-tokens.js';
import { mailLink } from '../domain/status-pages/subscriptions.js';
import { mailThreading } from './mail-message-ids.js';
import { renderConfirmationMail, renderIncidentMail } from './mail-render.js';
import type { RenderedMail } from './mail-render.js';
import { renderMaintenanceMail } from './maintenance-mail.js';
import { DEFAULT_DESTINATION_LIMITS } from '../config/destination-limits.js';
import type { DestinationLimits } from '../config/destination-limits.js';
import { DeliveryFailure } from './publisher.js';
import type { Delivery, Publisher } from './publisher.js';
import type { PublisherKind } from './publisher-kind.js';

export interface MailPublisherOptions {
  ctx: DomainContext;
  smtp: { url: string; from: string };
  /**
   * Waits between tries while the server cannot be reached: the first, then
   * about as long as the outage has lasted (so doubling), up to the last.
   */
  unreachableDelay?: { firstMs: number; maxMs: number };
  /** Connecting, the greeting, and silence on the line, each; well under the worker's lease of a row. */
  timeoutMs?: number;
  random?: () => number;
  /** How hard one mail address is driven. */
  limits?: DestinationLimits;
}

export interface MailPublisher extends Publisher {
  /** Closes the pooled connections. */
  close(): void;
}

/** Failures that say nothing about the mail: the server could not be reached or asked to come back later (421). */
const UNREACHABLE = new Set(['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS', 'EPROXY', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
const isUnreachable = (e: NodemailerError): boolean => e.responseCode === 421 || (e.responseCode === undefined && UNREACHABLE.has(e.code ?? ''));

/** The address only, for the line that says where mail goes: the URL may carry a password. */
const serverOf = (url: string): string => {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
};

/** A mail publisher's state: its settings, its pooled transport, and the outage as this process sees it. */
interface Mailer {
  ctx: DomainContext;
  smtp: { url: string; from: string };
  delay: { firstMs: number; maxMs: number };
  random: () => number;
  /** The server's address, for messages: the URL may carry a password. */
  server: string;
  transport: ReturnType<typeof nodemailer.createTransport>;
  /** From the first failure to reach the server, until a mail goes through. */
  unreachableSince: number | null;
  lastUnreachable: number;
}

/** A subscriber as its mail is written: the address, the state, and the page. */
interface MailSubscriber {
  id: number;
  email: string;
  state: string;
  page_name: string;
  page_url: string;
}

/**
 * Mail to status page subscribers over SMTP (nodemailer, pooled connections):
 * incident notifications and confirmations, text and HTML, each with an
 * unsubscribe link and RFC 8058 one-click headers. Links are signed when the
 * mail is sent, so a confirmation runs 48 hours from its sending. A server that
 * cannot be reached delays mail without using up its attempts: the failure is
 * reported as `rateLimited`, which the worker does not count, with a wait that
 * grows with the outage; a server that refuses a mail counts as usual.
 */
export function createMailPublisher(options: MailPublisherOptions): MailPublisher {
  const { ctx, smtp } = options;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const limits = options.limits ?? DEFAULT_DESTINATION_LIMITS;
  const m: Mailer = {
    ctx,
    smtp,
    delay: options.unreachableDelay ?? { firstMs: 1_000, maxMs: 15 * 60_000 },
    random: options.random ?? Math.random,
    server: serverOf(smtp.url),
    transport: nodemailer.createTransport({
      url: smtp.url,
      pool: true,
      maxConnections: 4,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs * 2,
      disableFileAccess: true,
      disableUrlAccess: true,
    }),
    unreachableSince: null,
    lastUnreachable: 0,
  };
  return {
    name: 'email',
    streamPrefix: EMAIL_STREAM_PREFIX,
    minIntervalMs: () => 0,
    streamWidth: limits.concurrency,
    ...(limits.perSecond === null ? {} : { streamRate: limits.perSecond }),
    deliver: (delivery: Delivery) => deliverMail(m, delivery),
    close: () => m.transport.close(),
  };
}

async function deliverMail(m: Mailer, delivery: Delivery): Promise<void> {
  const { ctx } = m;
  const id = emailSubscriberOfStream(delivery.stream);
  const subscriber = id === null ? undefined : await subscriberOf(ctx, id);
  // Unsubscribed since the row was queued: there is no one left to tell.
  if (!subscriber) return;
  const rendered = await render(ctx, delivery, subscriber);
  if (!rendered) return;
  const { mail, unsubscribeUrl } = rendered;
  const threading = mailThreading({
    databaseId: await databaseId(ctx),
    deliveryId: delivery.id,
    subscriberId: subscriber.id,
    host: new URL(subscriber.page_url).hostname,
    payload: delivery.payload as EmailPayload,
  });
  try {
    await m.transport.sendMail({
      from: m.smtp.from,
      to: subscriber.email,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      date: ctx.clock.now(),
      ...threading,
      list: { unsubscribe: unsubscribeUrl },
      headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'Auto-Submitted': 'auto-generated' },
    });
  } catch (error) {
    const e = error as NodemailerError;
    if (isUnreachable(e)) throw unreachableFailure(m, e);
    throw new DeliveryFailure(`SMTP ${m.server} refused the mail to email subscriber ${subscriber.id}: ${e.message}`);
  }
  m.unreachableSince = null;
}

function subscriberOf(ctx: DomainContext, id: number): Promise<MailSubscriber | undefined> {
  return ctx.db
    .selectFrom('email_subscribers')
    .innerJoin('status_pages', 'status_pages.id', 'email_subscribers.status_page_id')
    .select(['email_subscribers.id', 'email_subscribers.email', 'email_subscribers.state', 'status_pages.name as page_name', 'status_pages.url as page_url'])
    .where('email_subscribers.id', '=', id)
    .executeTakeFirst();
}

function unreachableFailure(m: Mailer, error: NodemailerError): DeliveryFailure {
  const { delay } = m;
  const now = m.ctx.clock.now().getTime();
  // Nothing went through since an old outage (no mail was due): this is a new one.
  if (m.unreachableSince === null || now - m.lastUnreachable > 2 * delay.maxMs) m.unreachableSince = now;
  m.lastUnreachable = now;
  const ceiling = Math.min(delay.maxMs, Math.max(delay.firstMs, now - m.unreachableSince));
  return new DeliveryFailure(`SMTP ${m.server} cannot be reached: ${error.message}`, {
    rateLimited: true,
    retryAfterMs: Math.round(ceiling / 2 + (m.random() * ceiling) / 2),
  });
}

/** The mail of a delivery, with its links signed now; null when there is nothing left to send (confirmed or not yet). */
async function render(ctx: DomainContext, delivery: Delivery, subscriber: MailSubscriber): Promise<{ mail: RenderedMail; unsubscribeUrl: string } | null> {
  const payload = delivery.payload as EmailPayload;
  const now = ctx.clock.now().getTime();
  const sign = (purpose: 'confirm' | 'unsubscribe', ttl: number) => signPageToken(ctx, { purpose, subscriberId: subscriber.id, expiresAt: now + ttl });
  const unsubscribeUrl = mailLink(subscriber.page_url, 'unsubscribe', await sign('unsubscribe', UNSUBSCRIBE_TTL_MS));
  if (payload.event === CONFIRMATION_EVENT) {
    // Confirmed meanwhile (by an earlier mail's link): this one has nothing left to ask.
    if (subscriber.state !== 'pending') return null;
    const confirmUrl = mailLink(subscriber.page_url, 'confirm', await sign('confirm', CONFIRM_TTL_MS));
    const mail = renderConfirmationMail({
      pageName: subscriber.page_name,
      pageUrl: subscriber.page_url,
      confirmUrl,
      unsubscribeUrl,
      expiresAt: new Date(now + CONFIRM_TTL_MS),
    });
    return { mail, unsubscribeUrl };
  }
  if (subscriber.state !== 'confirmed') return null;
  const pageLinks = { pageUrl: subscriber.page_url, unsubscribeUrl };
  if (payload.event.startsWith('maintenance.')) return { mail: renderMaintenanceMail(payload as MaintenanceNotification, pageLinks), unsubscribeUrl };
  return { mail: renderIncidentMail(payload as IncidentNotification, pageLinks), unsubscribeUrl };
}

export const email = {
  kind: 'email',
  create: ({ ctx, smtp, limits, unreachableDelay }) => (smtp ? createMailPublisher({ ctx, smtp, limits, unreachableDelay }) : null),
} satisfies PublisherKind<'email'>;
