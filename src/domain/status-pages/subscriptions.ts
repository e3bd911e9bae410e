import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { invalidInput } from '../errors.js';
import { CONFIRMATION_EVENT, emailStream, enqueueConfirmation } from '../notifications/email-notifications.js';
import { parseInput } from '../validation.js';
import type { PublicPage } from './page-directory.js';
import { verifyPageToken } from './page-tokens.js';
import type { TokenPurpose } from './page-tokens.js';
import { emailSubscriptionInput } from './subscription-input.js';
import { created, recordAudit, removed } from '../audit/audit-trail.js';
import { liftSuppression, suppressAddress } from './email-suppressions.js';

/** Where the subscription pages are, under a page's address (its `url`, or `base` when served). */
export const SUBSCRIPTION_PATHS = {
  subscribe: '/subscribe',
  checkInbox: '/subscribe/check-inbox',
  confirm: '/subscribe/confirm',
  unsubscribe: '/unsubscribe',
} as const;

/** The link of a mail that does what its token is for. */
export const mailLink = (pageUrl: string, purpose: TokenPurpose, token: string): string =>
  `${pageUrl}${purpose === 'confirm' ? SUBSCRIPTION_PATHS.confirm : SUBSCRIPTION_PATHS.unsubscribe}?token=${token}`;

/** A pending address is sent another confirmation when it signs up again, at most this often. */
export const CONFIRMATION_RESEND_MS = 10 * 60_000;

/** What following a link from a mail found. A link that is not ours is an invalid_input error instead. */
export type LinkOutcome =
  /** Done (confirmed, unsubscribed), or found subscribed (for the unsubscribe page); with the address. */
  | { state: 'done'; email: string }
  /** A genuine link past its expiry: nothing was changed. */
  | { state: 'expired' }
  /** A genuine link whose subscription is no more (unsubscribed, or never confirmed and removed). */
  | { state: 'gone' };

/** The page's services chosen by urlname, as ids; null when none is chosen (all of them). */
async function chosenServices(ctx: DomainContext, page: PublicPage, urlnames: readonly string[]): Promise<string | null> {
  if (urlnames.length === 0) return null;
  const shown = await ctx.db
    .selectFrom('status_page_services')
    .innerJoin('services', 'services.id', 'status_page_services.service_id')
    .select(['services.id', 'services.urlname'])
    .where('status_page_services.status_page_id', '=', page.id)
    .execute();
  const byUrlname = new Map(shown.map((s) => [s.urlname, s.id]));
  const ids = urlnames.map((urlname, i) => {
    const id = byUrlname.get(urlname);
    if (id === undefined) throw invalidInput(['services', i], `${urlname} is not a service of this page`);
    return id;
  });
  return JSON.stringify(ids.sort((a, b) => a - b));
}

/**
 * Signs an address up for a page's incident mail. A new address is stored
 * pending and sent a confirmation; a pending one gets its choice of services
 * updated and another confirmation (not more often than every ten minutes);
 * a confirmed one is left as it is. Callers answer all three alike, so that
 * nobody learns who is subscribed.
 */
export async function subscribe(ctx: DomainContext, page: PublicPage, raw: { email?: unknown; services?: unknown }): Promise<void> {
  const input = parseInput(emailSubscriptionInput, { email: raw.email, services: raw.services ?? [] }, 'body', 'form');
  const services = await chosenServices(ctx, page, input.services);
  const now = ctx.clock.now().getTime();
  const pageRef = { id: page.id, name: page.name, url: page.url };
  await ctx.write(async (trx) => {
    const find = () =>
      trx.selectFrom('email_subscribers').select(['id', 'state']).where('status_page_id', '=', page.id).where('email', '=', input.email).executeTakeFirst();
    let existing = await find();
    if (!existing) {
      // Another request may sign the same address up at the same moment: the unique key decides, and it is read back.
      await trx
        .insertInto('email_subscribers')
        .values({ status_page_id: page.id, email: input.email, state: 'pending', origin: 'form', services, created_at: now, confirmed_at: null })
        .onConflict((oc) => oc.columns(['status_page_id', 'email']).doNothing())
        .execute();
      existing = await find();
      if (!existing) return;
      await recordAudit(ctx, trx, {
        companyId: page.companyId,
        action: 'email_subscriber.sign_up',
        targetType: 'email_subscriber',
        targetId: existing.id,
        changes: created({ status_page_id: page.id, state: 'pending', services: services === null ? null : JSON.parse(services) }),
      });
    } else if (existing.state === 'pending') {
      await trx.updateTable('email_subscribers').set({ services }).where('id', '=', existing.id).execute();
    }
    if (existing.state !== 'pending' || (await confirmationUnderWay(trx, existing.id, now))) return;
    await enqueueConfirmation(trx, { companyId: page.companyId, subscriberId: existing.id, page: pageRef, now });
  });
}

/** Whether a confirmation to this subscriber waits for delivery, or went out lately. */
async function confirmationUnderWay(trx: Kysely<Database>, subscriberId: number, now: number): Promise<boolean> {
  const row = await trx
    .selectFrom('outbox')
    .select('id')
    .where('stream', '=', emailStream(subscriberId))
    .where('event', '=', CONFIRMATION_EVENT)
    .where((eb) => eb.or([eb('state', '=', 'pending'), eb('created_at', '>', now - CONFIRMATION_RESEND_MS)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** The page's subscriber a genuine, unexpired token names; invalid_input for a token we did not make. */
async function subscriberOfToken(
  ctx: DomainContext,
  page: PublicPage,
  token: string,
  purpose: TokenPurpose,
): Promise<{ state: 'expired' } | { state: 'gone' } | { state: 'found'; id: number; email: string; pending: boolean }> {
  const check = await verifyPageToken(ctx, token, purpose);
  if (check.state === 'invalid') throw invalidInput(['token'], 'This link is not valid: it may have been changed or cut short.');
  if (check.state === 'expired') return { state: 'expired' };
  const row = await ctx.db
    .selectFrom('email_subscribers')
    .select(['id', 'email', 'state'])
    .where('id', '=', check.subscriberId)
    .where('status_page_id', '=', page.id)
    .executeTakeFirst();
  return row ? { state: 'found', id: row.id, email: row.email, pending: row.state === 'pending' } : { state: 'gone' };
}

/** Follows the link of a confirmation mail: the subscriber receives the page's incident mail from now on. */
export async function confirmSubscription(ctx: DomainContext, page: PublicPage, token: string): Promise<LinkOutcome> {
  const found = await subscriberOfToken(ctx, page, token, 'confirm');
  if (found.state !== 'found') return found;
  if (found.pending) {
    const now = ctx.clock.now().getTime();
    await ctx.write(async (trx) => {
      const result = await trx
        .updateTable('email_subscribers')
        .set({ state: 'confirmed', confirmed_at: now })
        .where('id', '=', found.id)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return;
      // Signed up again and confirmed: the address wants the mail, the config's entry for it counts again.
      await liftSuppression(trx, page.id, found.email);
      await recordAudit(ctx, trx, {
        companyId: page.companyId,
        action: 'email_subscriber.confirm',
        targetType: 'email_subscriber',
        targetId: found.id,
        changes: { state: { from: 'pending', to: 'confirmed' } },
      });
    });
  }
  return { state: 'done', email: found.email };
}

/** Who an unsubscribe link would unsubscribe; changes nothing (the page asks before it does). */
export async function unsubscribeTarget(ctx: DomainContext, page: PublicPage, token: string): Promise<LinkOutcome> {
  const found = await subscriberOfToken(ctx, page, token, 'unsubscribe');
  return found.state === 'found' ? { state: 'done', email: found.email } : found;
}

/**
 * Follows an unsubscribe link (RFC 8058 one-click, or the page's button): the
 * subscriber is removed, with the mail still waiting for it, and the address
 * is remembered as unsubscribed, so that the config does not sign it up again.
 */
export async function unsubscribe(ctx: DomainContext, page: PublicPage, token: string): Promise<LinkOutcome> {
  const found = await subscriberOfToken(ctx, page, token, 'unsubscribe');
  if (found.state !== 'found') return found;
  await ctx.write(async (trx) => {
    await trx.deleteFrom('outbox').where('stream', '=', emailStream(found.id)).where('state', '=', 'pending').execute();
    const result = await trx.deleteFrom('email_subscribers').where('id', '=', found.id).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) return;
    await suppressAddress(trx, page.id, found.email, ctx.clock.now().getTime());
    await recordAudit(ctx, trx, {
      companyId: page.companyId,
      action: 'email_subscriber.unsubscribe',
      targetType: 'email_subscriber',
      targetId: found.id,
      changes: removed({ status_page_id: page.id, state: found.pending ? 'pending' : 'confirmed' }),
    });
  });
  return { state: 'done', email: found.email };
}

/** How many addresses are signed up for mail, on every page. */
export async function emailSubscriberCount(ctx: DomainContext): Promise<number> {
  const row = await ctx.db
    .selectFrom('email_subscribers')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
