import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DomainContext } from '../../domain/context.js';
import { DomainError } from '../../domain/errors.js';
import { readEpoch } from '../../domain/read-epoch.js';
import { findPage, pageHosts } from '../../domain/status-pages/page-directory.js';
import type { ClientAddress } from '../../infrastructure/client-address.js';
import { isDatabaseUnavailable } from '../../infrastructure/database-unavailable.js';
import { hostKey } from '../../infrastructure/host-key.js';
import { HttpProblem, renderError } from '../http-errors.js';
import { readBody } from '../read-body.js';
import type { RequestTrace } from '../request-trace.js';
import { createMakingOnce, createResponseCache } from '../response-cache.js';
import type { ResponseCache } from '../response-cache.js';
import { createRouteTable } from '../route-table.js';
import type { RouteMatch, RouteTable } from '../route-table.js';
import { answerRepeat, createAnswerSender, sendAnswer } from './answer-sender.js';
import type { AnswerSender } from './answer-sender.js';
import type { PublicReply, PublicRequest, PublicRoute } from './public-route.js';
import { JSON_TYPE } from './public-route.js';
import { createRenderDates, prepareAnswer } from './rendered-answer.js';
import type { RenderDates, Rendered } from './rendered-answer.js';
import { FAVICON, FAVICON_PATH } from './render/favicon.js';
import { PAGE_SCRIPT } from './render/page-script.js';
import { STYLESHEET } from './render/stylesheet.js';
import { errorReply, notFoundReply } from './replies.js';

const RENDERED_MAX = 2_000;
/** Paths of the Statuspage-compatible API (see statuspage-routes.ts), where every answer is JSON. */
const STATUSPAGE_API = /^\/status\/[^/]+\/api\//;
/** Any origin may read the Statuspage documents, as it may Statuspage's own (widgets, dashboards in a browser). */
const CROSS_ORIGIN = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'ETag' };
const PREFLIGHT = {
  ...CROSS_ORIGIN,
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': '*',
  'Access-Control-Max-Age': '86400',
};
const MAX_FORM_BYTES = 16 * 1024;
const IMMUTABLE = { 'Cache-Control': 'public, max-age=31536000, immutable' };

/** The public side, as the server asks it. */
export interface PublicRouter {
  /** Answers a public path; false for paths it does not know, so that the caller goes on with its own. */
  handle(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams, trace?: RequestTrace): Promise<boolean>;
  /** Answers a request asked before, while nothing has changed, without routing (see answer-sender.ts). */
  answerRepeat(req: IncomingMessage, res: ServerResponse, trace: RequestTrace): boolean;
}

/** What the router keeps across requests. */
interface RouterState {
  ctx: DomainContext;
  table: RouteTable<PublicRoute>;
  rendered: ResponseCache<Rendered>;
  renderOnce: ReturnType<typeof createMakingOnce<Rendered>>;
  dates: RenderDates;
  sender: AnswerSender;
  clientAddress: ClientAddress;
  onRendered: ((route: string) => void) | undefined;
  /** The files every page uses, by path, answered on every host. */
  assets: { stylesheet: Rendered; script: Rendered; favicon: Rendered };
}

/** Where a request is answered: the path it means, where the page's links start, and whether it is the Statuspage API. */
interface Place {
  path: string;
  base: string | null;
  statuspageApi: boolean;
}

/**
 * Serves the public side: status pages (also at / of a page's own host),
 * tracker pages, feeds, subscriptions, the stylesheet and the script. Cacheable answers are
 * rendered once per change of the database and answered with an ETag (304 when
 * the client has it). Returns false for paths it does not know, so that the
 * caller goes on with its own.
 */
export function createPublicRouter(
  ctx: DomainContext,
  routes: readonly PublicRoute[],
  clientAddress: ClientAddress,
  /** Called with the route's path each time an answer is rendered rather than taken from the cache (metrics). */
  onRendered?: (route: string) => void,
): PublicRouter {
  const state: RouterState = {
    ctx,
    table: createRouteTable(routes),
    rendered: createResponseCache<Rendered>(RENDERED_MAX),
    renderOnce: createMakingOnce<Rendered>(),
    dates: createRenderDates(() => ctx.clock.now(), RENDERED_MAX),
    sender: createAnswerSender(ctx),
    clientAddress,
    onRendered,
    assets: {
      stylesheet: prepareAnswer({ status: 200, contentType: 'text/css; charset=utf-8', body: STYLESHEET, headers: IMMUTABLE }, true),
      script: prepareAnswer({ status: 200, contentType: 'text/javascript; charset=utf-8', body: PAGE_SCRIPT, headers: IMMUTABLE }, true),
      favicon: prepareAnswer(
        { status: 200, contentType: 'image/vnd.microsoft.icon', body: FAVICON, headers: { 'Cache-Control': 'public, max-age=86400' } },
        true,
      ),
    },
  };
  return {
    handle: (req, res, rawPath, query, trace) => handle(state, req, res, rawPath, query, trace),
    answerRepeat: (req, res, trace) => answerRepeat(state.sender, req, res, trace),
  };
}

async function handle(
  state: RouterState,
  req: IncomingMessage,
  res: ServerResponse,
  rawPath: string,
  query: URLSearchParams,
  trace?: RequestTrace,
): Promise<boolean> {
  const asset = assetOf(state, req, rawPath);
  if (asset) {
    if (trace) trace.route = asset.route;
    await sendAnswer(state.sender, req, res, asset.entry);
    return true;
  }
  // Paths under /status/ and /assets/ mean the same on every host: no lookup of page hosts for them.
  const { path, base } = rawPath.startsWith('/status/') ? { path: rawPath, base: null } : await resolve(state.ctx, req, rawPath);
  const place: Place = { path, base, statuspageApi: STATUSPAGE_API.test(path) };
  try {
    return await answerRoute(state, req, res, place, query, trace);
  } catch (error) {
    await answerFailure(state, req, res, place, error);
    return true;
  }
}

function assetOf(state: RouterState, req: IncomingMessage, rawPath: string): { route: string; entry: Rendered } | null {
  if (rawPath.startsWith('/assets/statusbot.css')) return { route: '/assets/statusbot.css', entry: state.assets.stylesheet };
  if (rawPath.startsWith('/assets/statusbot.js')) return { route: '/assets/statusbot.js', entry: state.assets.script };
  // At every host's root, as browsers ask it there.
  if (rawPath === FAVICON_PATH && (req.method === 'GET' || req.method === 'HEAD')) return { route: FAVICON_PATH, entry: state.assets.favicon };
  return null;
}

const keyedHostMaps = new WeakMap<Map<string, string>, Map<string, string>>();

/** The page hosts under their hostKey, as requests are looked up: made once per reading of the hosts. */
function keyedHosts(hosts: Map<string, string>): Map<string, string> {
  let keyed = keyedHostMaps.get(hosts);
  if (!keyed) {
    keyed = new Map([...hosts].map(([host, slug]) => [hostKey(host), slug]));
    keyedHostMaps.set(hosts, keyed);
  }
  return keyed;
}

/** The path a request means: on a page's own host, `/x` is that page's `/status/{slug}/x`. */
async function resolve(ctx: DomainContext, req: IncomingMessage, path: string): Promise<{ path: string; base: string | null }> {
  if (path.startsWith('/assets/') || path.startsWith('/status/')) return { path, base: null };
  const host = hostKey(req.headers.host ?? '');
  if (!host) return { path, base: null };
  const slug = keyedHosts(await pageHosts(ctx)).get(host);
  if (slug === undefined) return { path, base: null };
  return { path: `/status/${slug}${path === '/' ? '' : path}`, base: '' };
}

/** The route's answer; false for a path outside /status/ that no route has. */
async function answerRoute(
  state: RouterState,
  req: IncomingMessage,
  res: ServerResponse,
  place: Place,
  query: URLSearchParams,
  trace?: RequestTrace,
): Promise<boolean> {
  const { path, statuspageApi } = place;
  if (statuspageApi && req.method === 'OPTIONS') {
    const preflighted = state.table.find('GET', path);
    if (!preflighted?.route?.statuspageApi) throw new HttpProblem('route_not_found', 'No such document');
    if (trace) trace.route = preflighted.route.path;
    await sendAnswer(state.sender, req, res, prepareAnswer({ status: 204, headers: PREFLIGHT }, false));
    return true;
  }
  const hit = state.table.find(req.method ?? 'GET', path);
  if (!hit) {
    if (statuspageApi) throw new HttpProblem('route_not_found', 'No such document');
    if (!path.startsWith('/status/')) return false;
    if (trace) trace.route = '/status/*';
    await notFound(state, req, res, place);
    return true;
  }
  if (trace) trace.route = (hit.route ?? hit.declared).path;
  if (statuspageApi && hit.route === null) throw new HttpProblem('method_not_allowed', `${req.method} is not allowed here; use GET`, { Allow: 'GET' });
  if (hit.route === null) {
    const refused = errorReply(405, 'Method not allowed', `${req.method} is not allowed here; use ${hit.allow}.`, { Allow: hit.allow });
    await sendAnswer(state.sender, req, res, prepareAnswer(refused, false));
    return true;
  }
  await answerFound(state, req, res, place, hit, query, trace);
  return true;
}

async function answerFound(
  state: RouterState,
  req: IncomingMessage,
  res: ServerResponse,
  place: Place,
  hit: RouteMatch<PublicRoute>,
  query: URLSearchParams,
  trace?: RequestTrace,
): Promise<void> {
  const route = hit.route;
  const slug = hit.params.slug;
  // A cacheable answer sees only the parameters it declares, so that the cache key (made of those) is all it can depend on.
  const used = route.cacheable ? usedQuery(query, route.queryKeys ?? []) : query;
  const request = async (): Promise<PublicRequest> => ({
    // Changes made from a public page (sign-ups, confirmations) are the page's visitors'.
    ctx: state.ctx.actingAs({ actor: 'page', requestId: trace?.id ?? null }),
    method: req.method as PublicRequest['method'],
    params: hit.params,
    query: used,
    headers: req.headers,
    body: await readForm(req),
    clientAddress: state.clientAddress(req),
    base: place.base ?? (slug !== undefined ? `/status/${encodeURIComponent(slug)}` : ''),
  });
  if (!route.cacheable) {
    // A GET that acts (a confirmation link) acts on GET only: HEAD, as link checkers send it, changes nothing.
    if (req.method === 'HEAD') {
      await sendAnswer(
        state.sender,
        req,
        res,
        prepareAnswer(errorReply(405, 'Method not allowed', 'HEAD is not answered here; use GET.', { Allow: 'GET' }), false),
      );
      return;
    }
    await sendAnswer(state.sender, req, res, prepareAnswer(await route.handle(await request()), false));
    return;
  }
  await answerCacheable(state, req, res, place, route, used, request);
}

/** Rendered once per change of the database, for every request that asks meanwhile. */
async function answerCacheable(
  state: RouterState,
  req: IncomingMessage,
  res: ServerResponse,
  place: Place,
  route: PublicRoute,
  used: URLSearchParams,
  request: () => Promise<PublicRequest>,
): Promise<void> {
  const { path, base } = place;
  // Taken before rendering: a change made meanwhile makes the entry stale at once.
  const epoch = readEpoch(state.ctx);
  const search = used.size === 0 ? '' : `?${used.toString()}`;
  const key = base === null ? `${path}${search}` : `${base} ${path}${search}`;
  const entry =
    state.rendered.get(key, epoch) ??
    (await state.renderOnce(key, epoch, async () => {
      const reply = await route.handle(await request());
      const made = prepareAnswer(route.statuspageApi ? { ...reply, headers: { ...reply.headers, ...CROSS_ORIGIN } } : reply, true, { dates: state.dates, key });
      state.rendered.set(key, epoch, made);
      state.onRendered?.(route.path);
      return made;
    }));
  // Sent at once when the coding asked for is made: no wait between a cached answer and its request.
  const sending = sendAnswer(state.sender, req, res, entry, { epoch, route: route.path });
  if (sending) await sending;
}

/** A failure, answered in the shape of where it happened: the Statuspage API's JSON, else a page of the site. */
async function answerFailure(state: RouterState, req: IncomingMessage, res: ServerResponse, place: Place, error: unknown): Promise<void> {
  if (place.statuspageApi && (error instanceof DomainError || error instanceof HttpProblem || isDatabaseUnavailable(error))) {
    await sendAnswer(state.sender, req, res, jsonError(error));
    return;
  }
  // A path segment holding NUL names nothing, like an unknown name.
  if ((error instanceof DomainError && error.code === 'not_found') || (error instanceof HttpProblem && error.code === 'route_not_found')) {
    await notFound(state, req, res, place);
    return;
  }
  const reply = pageErrorReply(error);
  if (reply === null) throw error;
  await sendAnswer(state.sender, req, res, prepareAnswer(reply, false));
}

/** The page for a failure a visitor can be told of; null for any other. */
function pageErrorReply(error: unknown): PublicReply | null {
  if (error instanceof HttpProblem && error.code === 'bad_request') return errorReply(400, 'Bad request', `${error.message}.`);
  if (error instanceof HttpProblem && error.code === 'payload_too_large') return errorReply(413, 'Too large', error.message, error.headers);
  if (error instanceof DomainError && error.code === 'invalid_input') return errorReply(400, 'Not valid', error.message);
  if (isDatabaseUnavailable(error))
    return errorReply(503, 'Unavailable', 'The status page cannot be shown right now. Please try again.', { 'Retry-After': '5' });
  return null;
}

/** An error of the Statuspage API, in the API's error shape. */
function jsonError(error: unknown): Rendered {
  const rendered = renderError(error);
  return prepareAnswer(
    { status: rendered.status, contentType: JSON_TYPE, headers: { ...rendered.headers, ...CROSS_ORIGIN }, body: JSON.stringify(rendered.body) },
    false,
  );
}

/** Under /status/, an address nobody answers is a page of the site, with a way home (the status page's, when it names one). */
async function notFound(state: RouterState, req: IncomingMessage, res: ServerResponse, place: Place): Promise<void> {
  const { path, base } = place;
  const slug = decodeSegment(path.split('/')[2]);
  const page = slug === null ? null : await findPage(state.ctx, slug).catch(() => null);
  const home = page === null ? null : { href: base === null ? `/status/${encodeURIComponent(page.slug)}` : base === '' ? '/' : base, name: page.name };
  await sendAnswer(state.sender, req, res, prepareAnswer(notFoundReply(home), false));
}

function readForm(req: IncomingMessage): Promise<Buffer> {
  return req.method === 'POST' ? readBody(req, MAX_FORM_BYTES, 'The form') : Promise.resolve(Buffer.alloc(0));
}

/** Of a query, the parameters in `keys`, in that order: `?utm_source=…` and the like name the same answer as none. */
function usedQuery(query: URLSearchParams, keys: readonly string[]): URLSearchParams {
  // The request's own, made for it alone: an empty one is already what is used of it.
  if (query.size === 0) return query;
  const used = new URLSearchParams();
  for (const key of keys) for (const value of query.getAll(key)) used.append(key, value);
  return used;
}

function decodeSegment(segment: string | undefined): string | null {
  if (!segment) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
