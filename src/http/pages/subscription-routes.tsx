import type { DomainContext } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { findPage } from '../../domain/status-pages/page-directory.js';
import type { PublicPage } from '../../domain/status-pages/page-directory.js';
import { SUBSCRIPTION_PATHS, confirmSubscription, subscribe, unsubscribe, unsubscribeTarget } from '../../domain/status-pages/subscriptions.js';
import type { LinkOutcome } from '../../domain/status-pages/subscriptions.js';
import { createRateLimiter } from '../../infrastructure/rate-limiter.js';
import type { RateLimiter } from '../../infrastructure/rate-limiter.js';
import type { PublicReply, PublicRequest, PublicRoute } from './public-route.js';
import { HTML, seeOther } from './public-route.js';
import { MessagePage, renderPage } from './render/layout.js';
import { errorReply } from './replies.js';

/** Sign-ups per client address and minute: each may send a mail, so a script must not turn a page into a mail cannon. */
export const SUBSCRIBE_PER_MINUTE = 10;

// One limiter per server (its context's processState, which every request's context shares), not per process:
// test servers and their clocks stay apart.
const limiters = new WeakMap<DomainContext['processState'], RateLimiter>();
const limiterOf = (ctx: DomainContext): RateLimiter => {
  let limiter = limiters.get(ctx.processState);
  if (!limiter) {
    limiter = createRateLimiter(SUBSCRIBE_PER_MINUTE);
    limiters.set(ctx.processState, limiter);
  }
  return limiter;
};

interface Shown {
  page: PublicPage;
  base: string;
}

function message(status: number, at: Shown, title: string, body: preact.ComponentChildren): PublicReply {
  return {
    status,
    contentType: HTML,
    body: renderPage(
      <MessagePage title={title} base={at.base} pageName={at.page.name}>
        {body}
      </MessagePage>,
    ),
  };
}

const home = (base: string): string => (base === '' ? '/' : base);

const subscribeAgain = (at: Shown) => (
  <p>
    <a href={`${home(at.base)}#subscribe`}>Subscribe again on {at.page.name}</a>.
  </p>
);

/** The answer to a link that is genuine but could not be followed. */
function linkTrouble(outcome: Exclude<LinkOutcome, { state: 'done' }>, at: Shown, purpose: 'confirm' | 'unsubscribe'): PublicReply {
  switch (outcome.state) {
    case 'expired':
      return purpose === 'confirm'
        ? message(410, at, 'This link has expired', [<p>Confirmation links work for 48 hours. Nothing was changed.</p>, subscribeAgain(at)])
        : message(410, at, 'This link has expired', <p>Nothing was changed. Use the unsubscribe link of a newer mail from {at.page.name}.</p>);
    case 'gone':
      return purpose === 'confirm'
        ? message(410, at, 'This subscription no longer exists', [<p>It was cancelled. Nothing was changed.</p>, subscribeAgain(at)])
        : message(200, at, 'You are not subscribed', <p>This address receives no mail from {at.page.name}.</p>);
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/** Runs a use case that follows a link; a link we did not sign answers 400 and changes nothing. */
async function followLink(req: PublicRequest, run: (at: Shown, token: string) => Promise<PublicReply>): Promise<PublicReply> {
  const at = { page: await findPage(req.ctx, req.params.slug ?? ''), base: req.base };
  try {
    return await run(at, req.query.get('token') ?? '');
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_input') {
      return message(400, at, 'This link is not valid', [<p>{error.message} Nothing was changed.</p>, subscribeAgain(at)]);
    }
    throw error;
  }
}

/** `POST {base}/subscribe`: the same 303 whether the address is new, pending or confirmed. */
const subscribeRoute: PublicRoute = {
  method: 'POST',
  path: `/status/:slug${SUBSCRIPTION_PATHS.subscribe}`,
  async handle(req) {
    const { ctx } = req;
    const limit = limiterOf(ctx).take(req.clientAddress, ctx.clock.now().getTime());
    if (limit.retryAfterSeconds > 0) {
      return errorReply(429, 'Too many requests', 'Too many sign-ups from your address. Please wait a minute and try again.', {
        'Retry-After': String(limit.retryAfterSeconds),
      });
    }
    const at = { page: await findPage(ctx, req.params.slug ?? ''), base: req.base };
    const form = new URLSearchParams(req.body.toString('utf8'));
    try {
      await subscribe(ctx, at.page, { email: form.get('email') ?? undefined, services: form.getAll('service') });
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_input') {
        return message(400, at, 'Not subscribed', [
          <p>{error.message}.</p>,
          <p>
            <a href={`${home(at.base)}#subscribe`}>Back to {at.page.name}</a>
          </p>,
        ]);
      }
      throw error;
    }
    return seeOther(`${at.base}${SUBSCRIPTION_PATHS.checkInbox}`);
  },
};

const checkInboxRoute: PublicRoute = {
  method: 'GET',
  path: `/status/:slug${SUBSCRIPTION_PATHS.checkInbox}`,
  cacheable: true,
  async handle(req) {
    const at = { page: await findPage(req.ctx, req.params.slug ?? ''), base: req.base };
    return message(200, at, 'Check your inbox', [
      <p>
        If this address can receive mail, a message from {at.page.name} is on its way. Open the link in it to confirm your subscription; it works for 48 hours.
      </p>,
      <p>
        <a href={home(at.base)}>Back to {at.page.name}</a>
      </p>,
    ]);
  },
};

/** `GET {base}/subscribe/confirm?token=…`: the link of the confirmation mail. */
const confirmRoute: PublicRoute = {
  method: 'GET',
  path: `/status/:slug${SUBSCRIPTION_PATHS.confirm}`,
  handle: (req) =>
    followLink(req, async (at, token) => {
      const outcome = await confirmSubscription(req.ctx, at.page, token);
      if (outcome.state !== 'done') return linkTrouble(outcome, at, 'confirm');
      return message(200, at, 'Subscribed', [
        <p>
          {outcome.email} will receive a mail from {at.page.name} when an incident starts, changes or ends.
        </p>,
        <p>Every mail has a link to unsubscribe.</p>,
      ]);
    }),
};

/** `GET {base}/unsubscribe?token=…`: asks before it unsubscribes (mail scanners follow links). */
const unsubscribePageRoute: PublicRoute = {
  method: 'GET',
  path: `/status/:slug${SUBSCRIPTION_PATHS.unsubscribe}`,
  handle: (req) =>
    followLink(req, async (at, token) => {
      const outcome = await unsubscribeTarget(req.ctx, at.page, token);
      if (outcome.state !== 'done') return linkTrouble(outcome, at, 'unsubscribe');
      return message(200, at, 'Unsubscribe', [
        <p>
          Stop sending mail from {at.page.name} to {outcome.email}?
        </p>,
        <form method="post" action={`${at.base}${SUBSCRIPTION_PATHS.unsubscribe}?token=${encodeURIComponent(token)}`}>
          <button type="submit">Unsubscribe</button>
        </form>,
      ]);
    }),
};

/** `POST {base}/unsubscribe?token=…`: RFC 8058 one-click (`List-Unsubscribe=One-Click`), or the page's button. */
const unsubscribeRoute: PublicRoute = {
  method: 'POST',
  path: `/status/:slug${SUBSCRIPTION_PATHS.unsubscribe}`,
  handle: (req) =>
    followLink(req, async (at, token) => {
      const outcome = await unsubscribe(req.ctx, at.page, token);
      if (outcome.state !== 'done') return linkTrouble(outcome, at, 'unsubscribe');
      return message(200, at, 'Unsubscribed', [
        <p>
          {outcome.email} will receive no more mail from {at.page.name}.
        </p>,
        subscribeAgain(at),
      ]);
    }),
};

/** Signing up for a status page's mail, confirming, and leaving. */
export const subscriptionRoutes: PublicRoute[] = [subscribeRoute, checkInboxRoute, confirmRoute, unsubscribePageRoute, unsubscribeRoute];
