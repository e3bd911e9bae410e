import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DomainContext } from '../../domain/context.js';
import { isDatabaseUnavailable } from '../../db/database.js';
import { DomainError } from '../../domain/errors.js';
import { readEpoch } from '../../domain/read-epoch.js';
import { findPage, pageHosts } from '../../domain/status-pages/page-directory.js';
import type { ClientAddress } from '../../infrastructure/client-address.js';
import { clientHolds } from '../conditional-request.js';
import { compress, negotiateCoding } from '../content-coding.js';
import type { ContentCoding } from '../content-coding.js';
import { HttpProblem, renderError } from '../http-errors.js';
import { endAnswer, readBody } from '../read-body.js';
import { hostKey } from '../../infrastructure/host-key.js';
import { createMakingOnce, createResponseCache } from '../response-cache.js';
import { createRouteTable } from '../route-table.js';
import type { RequestTrace } from '../request-trace.js';
import type { PublicReply, PublicRequest, PublicRoute } from './public-route.js';
import { JSON_TYPE } from './public-route.js';
import { FAVICON, FAVICON_PATH } from './render/favicon.js';
import { PAGE_SCRIPT } from './render/page-script.js';
import { STYLESHEET } from './render/stylesheet.js';
import { errorReply, notFoundReply } from './replies.js';

/** No frame, nothing from another host: the pages are HTML, one stylesheet and one script, all served here. */
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};
/** Pages may be kept briefly by browsers and proxies, then revalidated with their ETag. */
const PAGE_CACHE_CONTROL = 'public, max-age=30, must-revalidate';
const RENDERED_MAX = 2_000;
/** Requests remembered with the answer they were sent (see Repeat). */
const REPEATS_MAX = 2_000;
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

/** One form of an answer's body, with its headers built once. */
interface Variant {
  body: Buffer;
  headers: Record<string, string | number>;
  /** For a 304: the same without the body's type, coding and length. */
  unchanged: Record<string, string | number>;
}

/** An answer ready to send again. */
interface Rendered {
  status: number;
  /** The opaque tags of every form of the body (each coding has its own); empty for answers sent fresh each time. */
  opaqueTags: ReadonlySet<string>;
  lastModifiedMs: number | null;
  identity: Variant;
  /** Compressed forms, made once at the first request that asks for each, and kept with the answer. */
  coded: Partial<Record<Exclude<ContentCoding, 'identity'>, Variant | Promise<Variant>>>;
  /** The headers every form shares (Cache-Control, Vary, Last-Modified, the route's own), for building the compressed forms'. */
  shared: Record<string, string | number>;
  opaqueTag: string | null;
}

/**
 * A cacheable answer as it was sent for one request: the same request (method,
 * host, target, Accept-Encoding, no validators) while the read epoch holds is
 * sent the same bytes without routing, negotiating or looking up again.
 */
interface Repeat {
  /** The route's path, as logs and metrics name it. */
  route: string;
  status: number;
  variant: Variant;
}

/** What a repeat is remembered under; null for a request that is never answered as a repeat. */
function repeatKey(req: IncomingMessage): string | null {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return null;
  const headers = req.headers;
  // Whether the client holds the answer is asked each time.
  if (headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) return null;
  return `${method} ${headers.host ?? ''} ${headers['accept-encoding'] ?? ''} ${req.url}`;
}

const opaqueTagOf = (body: Buffer): string => createHash('sha256').update(body).digest('base64url').slice(0, 27);
/** Each coding's ETag differs from the body's own (RFC 9110 §8.8.3): a suffix on the same tag. */
const codedTag = (tag: string, coding: ContentCoding): string => (coding === 'identity' ? tag : `${tag}-${coding}`);

function readForm(req: IncomingMessage): Promise<Buffer> {
  return req.method === 'POST' ? readBody(req, MAX_FORM_BYTES, 'The form') : Promise.resolve(Buffer.alloc(0));
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
) {
  const table = createRouteTable(routes);
  const rendered = createResponseCache<Rendered>(RENDERED_MAX);
  /** Kept under the read epoch they were sent in, as rendered answers are. */
  const repeats = createResponseCache<Repeat>(REPEATS_MAX);
  const renderOnce = createMakingOnce<Rendered>();
  const stylesheet = prepare(
    { status: 200, contentType: 'text/css; charset=utf-8', body: STYLESHEET, headers: { 'Cache-Control': 'public, max-age=31536000, immutable' } },
    true,
  );
  const script = prepare(
    {
      status: 200,
      contentType: 'text/javascript; charset=utf-8',
      body: PAGE_SCRIPT,
      headers: { 'Cache-Control': 'public, max-age=31536000, immutable' },
    },
    true,
  );
  const favicon = prepare({ status: 200, contentType: 'image/vnd.microsoft.icon', body: FAVICON, headers: { 'Cache-Control': 'public, max-age=86400' } }, true);

  /** The path a request means: on a page's own host, `/x` is that page's `/status/{slug}/x`. */
  async function resolve(req: IncomingMessage, path: string): Promise<{ path: string; base: string | null }> {
    if (path.startsWith('/assets/') || path.startsWith('/status/')) return { path, base: null };
    const host = hostKey(req.headers.host ?? '');
    if (!host) return { path, base: null };
    const slug = keyedHosts(await pageHosts(ctx)).get(host);
    if (slug === undefined) return { path, base: null };
    return { path: `/status/${slug}${path === '/' ? '' : path}`, base: '' };
  }

  /** When each cached answer's current body was first rendered: answers with undated parts are not older than that. */
  const firstRendered = new Map<string, { opaqueTag: string; atMs: number }>();

  function lastModifiedOf(reply: PublicReply, opaqueTag: string, key: string | undefined): number | null {
    const dated = reply.lastModified && reply.lastModified.getTime() > 0 ? reply.lastModified.getTime() : null;
    if (!reply.undatedParts || key === undefined) return dated;
    let seen = firstRendered.get(key);
    if (seen?.opaqueTag !== opaqueTag) {
      if (firstRendered.size >= RENDERED_MAX) firstRendered.clear();
      seen = { opaqueTag, atMs: ctx.clock.now().getTime() };
      firstRendered.set(key, seen);
    }
    return Math.max(dated ?? 0, seen.atMs);
  }

  /** `key`: the cache's, for answers rendered once per change. */
  function prepare(reply: PublicReply, cacheable: boolean, key?: string): Rendered {
    const body = reply.body === undefined ? Buffer.alloc(0) : typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
    const validated = cacheable && reply.status === 200;
    const opaqueTag = validated ? opaqueTagOf(body) : null;
    const lastModifiedMs = opaqueTag === null ? null : lastModifiedOf(reply, opaqueTag, key);
    const shared: Record<string, string | number> = {
      ...SECURITY_HEADERS,
      'Cache-Control': validated ? PAGE_CACHE_CONTROL : 'no-store',
      ...(validated ? { Vary: 'Accept-Encoding' } : {}),
      ...reply.headers,
      ...(lastModifiedMs !== null ? { 'Last-Modified': new Date(lastModifiedMs).toUTCString() } : {}),
    };
    return {
      status: reply.status,
      opaqueTags: new Set(opaqueTag === null ? [] : (['identity', 'gzip', 'br'] as const).map((c) => codedTag(opaqueTag, c))),
      lastModifiedMs,
      identity: variant(shared, opaqueTag, 'identity', reply.contentType, body),
      coded: {},
      shared,
      opaqueTag,
    };
  }

  /** An error of the Statuspage API, in the API's error shape. */
  function jsonError(error: unknown): Rendered {
    const rendered = renderError(error);
    return prepare(
      { status: rendered.status, contentType: JSON_TYPE, headers: { ...rendered.headers, ...CROSS_ORIGIN }, body: JSON.stringify(rendered.body) },
      false,
    );
  }

  function variant(
    shared: Record<string, string | number>,
    opaqueTag: string | null,
    coding: ContentCoding,
    contentType: string | undefined,
    body: Buffer,
  ): Variant {
    const unchanged = { ...shared, ...(opaqueTag !== null ? { ETag: `"${codedTag(opaqueTag, coding)}"` } : {}) };
    const headers = {
      ...unchanged,
      ...(contentType ? { 'Content-Type': contentType } : {}),
      ...(coding !== 'identity' ? { 'Content-Encoding': coding } : {}),
      'Content-Length': body.length,
    };
    return { body, headers, unchanged };
  }

  /** The answer in `coding`: compressed at the first request asking for it, while others asking meanwhile wait for the same. */
  function codedVariant(entry: Rendered, coding: Exclude<ContentCoding, 'identity'>): Variant | Promise<Variant> {
    const known = entry.coded[coding];
    if (known) return known;
    const type = entry.identity.headers['Content-Type'] as string | undefined;
    const making = compress(entry.identity.body, coding).then(
      (body) => {
        const made = variant(entry.shared, entry.opaqueTag, coding, type, body);
        entry.coded[coding] = made;
        return made;
      },
      (error: unknown) => {
        // The next request tries again rather than meeting the same failure for the entry's life.
        delete entry.coded[coding];
        throw error;
      },
    );
    entry.coded[coding] = making;
    return making;
  }

  /**
   * Sends `entry` in the coding the client takes best; waits only while that coding is being made. `repeat`: a
   * cached answer, remembered as sent for this very request under its epoch (see Repeat).
   */
  function send(req: IncomingMessage, res: ServerResponse, entry: Rendered, repeat?: { epoch: string; route: string }): void | Promise<void> {
    // Only answers with validators come in several codings; the others are small and said once.
    const coding = entry.opaqueTags.size === 0 ? 'identity' : negotiateCoding(req.headers['accept-encoding']);
    if (coding === null) {
      return send(
        req,
        res,
        prepare(errorReply(406, 'Not acceptable', 'The Accept-Encoding header refuses every coding this is served in: identity, gzip, br.'), false),
      );
    }
    const chosen = coding === 'identity' ? entry.identity : codedVariant(entry, coding);
    if (chosen instanceof Promise) return chosen.then((made) => sendVariant(req, res, entry, made, repeat));
    sendVariant(req, res, entry, chosen, repeat);
  }

  function sendVariant(req: IncomingMessage, res: ServerResponse, entry: Rendered, chosen: Variant, repeat?: { epoch: string; route: string }): void {
    if (entry.opaqueTags.size > 0 && clientHolds(req.headers, entry)) {
      res.writeHead(304, chosen.unchanged);
      res.end();
      return;
    }
    res.writeHead(entry.status, chosen.headers);
    endAnswer(res, chosen.body);
    if (repeat === undefined) return;
    const key = repeatKey(req);
    // Not when rendered or compressed while something changed: it is stale already.
    if (key !== null && repeat.epoch === readEpoch(ctx)) repeats.set(key, repeat.epoch, { route: repeat.route, status: entry.status, variant: chosen });
  }

  /**
   * Answers a request the same as the last time it was asked, when nothing
   * has changed since (the read epoch holds): the very bytes and headers, with
   * none of the routing. False when it was not asked so or something changed:
   * the request then takes the whole way.
   */
  function answerRepeat(req: IncomingMessage, res: ServerResponse, trace: RequestTrace): boolean {
    const key = repeatKey(req);
    const known = key === null ? undefined : repeats.get(key, readEpoch(ctx));
    if (known === undefined) return false;
    trace.route = known.route;
    res.writeHead(known.status, known.variant.headers);
    res.end(known.variant.body);
    return true;
  }

  /** Under /status/, an address nobody answers is a page of the site, with a way home (the status page's, when it names one). */
  async function notFound(res: ServerResponse, req: IncomingMessage, path: string, base: string | null): Promise<void> {
    const slug = decodeSegment(path.split('/')[2]);
    const page = slug === null ? null : await findPage(ctx, slug).catch(() => null);
    const home = page === null ? null : { href: base === null ? `/status/${encodeURIComponent(page.slug)}` : base === '' ? '/' : base, name: page.name };
    await send(req, res, prepare(notFoundReply(home), false));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams, trace?: RequestTrace): Promise<boolean> {
    if (rawPath.startsWith('/assets/statusbot.css')) {
      if (trace) trace.route = '/assets/statusbot.css';
      await send(req, res, stylesheet);
      return true;
    }
    if (rawPath.startsWith('/assets/statusbot.js')) {
      if (trace) trace.route = '/assets/statusbot.js';
      await send(req, res, script);
      return true;
    }
    // At every host's root, as browsers ask it there.
    if (rawPath === FAVICON_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      if (trace) trace.route = FAVICON_PATH;
      await send(req, res, favicon);
      return true;
    }
    // Paths under /status/ and /assets/ mean the same on every host: no lookup of page hosts for them.
    const { path, base } = rawPath.startsWith('/status/') ? { path: rawPath, base: null } : await resolve(req, rawPath);
    const statuspageApi = STATUSPAGE_API.test(path);
    try {
      if (statuspageApi && req.method === 'OPTIONS') {
        const preflighted = table.find('GET', path);
        if (!preflighted?.route?.statuspageApi) throw new HttpProblem('route_not_found', 'No such document');
        if (trace) trace.route = preflighted.route.path;
        await send(req, res, prepare({ status: 204, headers: PREFLIGHT }, false));
        return true;
      }
      const hit = table.find(req.method ?? 'GET', path);
      if (!hit) {
        if (statuspageApi) throw new HttpProblem('route_not_found', 'No such document');
        if (!path.startsWith('/status/')) return false;
        if (trace) trace.route = '/status/*';
        await notFound(res, req, path, base);
        return true;
      }
      if (trace) trace.route = (hit.route ?? hit.declared).path;
      if (statuspageApi && hit.route === null) throw new HttpProblem('method_not_allowed', `${req.method} is not allowed here; use GET`, { Allow: 'GET' });
      if (hit.route === null) {
        await send(
          req,
          res,
          prepare(errorReply(405, 'Method not allowed', `${req.method} is not allowed here; use ${hit.allow}.`, { Allow: hit.allow }), false),
        );
        return true;
      }
      const route = hit.route;
      const slug = hit.params.slug;
      // A cacheable answer sees only the parameters it declares, so that the cache key (made of those) is all it can depend on.
      const used = route.cacheable ? usedQuery(query, route.queryKeys ?? []) : query;
      const request = async (): Promise<PublicRequest> => ({
        // Changes made from a public page (sign-ups, confirmations) are the page's visitors'.
        ctx: ctx.actingAs({ actor: 'page', requestId: trace?.id ?? null }),
        method: req.method as PublicRequest['method'],
        params: hit.params,
        query: used,
        headers: req.headers,
        body: await readForm(req),
        clientAddress: clientAddress(req),
        base: base ?? (slug !== undefined ? `/status/${encodeURIComponent(slug)}` : ''),
      });
      if (!route.cacheable) {
        // A GET that acts (a confirmation link) acts on GET only: HEAD, as link checkers send it, changes nothing.
        if (req.method === 'HEAD') {
          await send(req, res, prepare(errorReply(405, 'Method not allowed', 'HEAD is not answered here; use GET.', { Allow: 'GET' }), false));
          return true;
        }
        await send(req, res, prepare(await route.handle(await request()), false));
        return true;
      }
      // Taken before rendering: a change made meanwhile makes the entry stale at once.
      const epoch = readEpoch(ctx);
      const search = used.size === 0 ? '' : `?${used.toString()}`;
      const key = base === null ? `${path}${search}` : `${base} ${path}${search}`;
      const entry =
        rendered.get(key, epoch) ??
        (await renderOnce(key, epoch, async () => {
          const reply = await route.handle(await request());
          const made = prepare(route.statuspageApi ? { ...reply, headers: { ...reply.headers, ...CROSS_ORIGIN } } : reply, true, key);
          rendered.set(key, epoch, made);
          onRendered?.(route.path);
          return made;
        }));
      // Sent at once when the coding asked for is made: no wait between a cached answer and its request.
      const sending = send(req, res, entry, { epoch, route: route.path });
      if (sending) await sending;
    } catch (error) {
      if (statuspageApi && (error instanceof DomainError || error instanceof HttpProblem || isDatabaseUnavailable(error))) {
        await send(req, res, jsonError(error));
        return true;
      }
      // A path segment holding NUL names nothing, like an unknown name.
      if ((error instanceof DomainError && error.code === 'not_found') || (error instanceof HttpProblem && error.code === 'route_not_found')) {
        await notFound(res, req, path, base);
      } else if (error instanceof HttpProblem && error.code === 'bad_request') {
        await send(req, res, prepare(errorReply(400, 'Bad request', `${error.message}.`), false));
      } else if (error instanceof HttpProblem && error.code === 'payload_too_large') {
        await send(req, res, prepare(errorReply(413, 'Too large', error.message, error.headers), false));
      } else if (error instanceof DomainError && error.code === 'invalid_input') {
        await send(req, res, prepare(errorReply(400, 'Not valid', error.message), false));
      } else if (isDatabaseUnavailable(error)) {
        await send(
          req,
          res,
          prepare(errorReply(503, 'Unavailable', 'The status page cannot be shown right now. Please try again.', { 'Retry-After': '5' }), false),
        );
      } else {
        throw error;
      }
    }
    return true;
  }

  return { handle, answerRepeat };
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
