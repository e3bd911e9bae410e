import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DomainContext } from '../../domain/context.js';
import { isDatabaseUnavailable } from '../../db/database.js';
import { DomainError } from '../../domain/errors.js';
import { readEpoch } from '../../domain/read-epoch.js';
import { pageHosts } from '../../domain/status-pages/page-directory.js';
import type { ClientAddress } from '../../infrastructure/client-address.js';
import { HttpProblem, renderError } from '../http-errors.js';
import { readBody } from '../read-body.js';
import { createResponseCache } from '../response-cache.js';
import { createRouteTable } from '../route-table.js';
import type { RequestTrace } from '../request-trace.js';
import type { PublicReply, PublicRequest, PublicRoute } from './public-route.js';
import { JSON_TYPE } from './public-route.js';
import { errorReply } from './replies.js';
import { STYLESHEET } from './render/stylesheet.js';

/** No script, no frame, nothing from another host: the pages are HTML and one stylesheet. */
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};
/** Pages may be kept briefly by browsers and proxies, then revalidated with their ETag. */
const PAGE_CACHE_CONTROL = 'public, max-age=30, must-revalidate';
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

/** An answer ready to send again: its headers are built once. */
interface Rendered {
  status: number;
  body: Buffer;
  etag: string | null;
  headers: Record<string, string | number>;
  /** For a 304: the same without the body's type and length. */
  unchanged: Record<string, string | number>;
}

const etagOf = (body: Buffer): string => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

function readForm(req: IncomingMessage): Promise<Buffer> {
  return req.method === 'POST' ? readBody(req, MAX_FORM_BYTES, 'The form') : Promise.resolve(Buffer.alloc(0));
}

/**
 * Serves the public side: status pages (also at / of a page's own host),
 * tracker pages, feeds, subscriptions and the stylesheet. Cacheable answers are
 * rendered once per change of the database and answered with an ETag (304 when
 * the client has it). Returns false for paths it does not know, so that the
 * caller goes on with its own.
 */
export function createPublicRouter(ctx: DomainContext, routes: readonly PublicRoute[], clientAddress: ClientAddress) {
  const table = createRouteTable(routes);
  const rendered = createResponseCache<Rendered>(RENDERED_MAX);
  const stylesheet = prepare(
    { status: 200, contentType: 'text/css; charset=utf-8', body: STYLESHEET, headers: { 'Cache-Control': 'public, max-age=31536000, immutable' } },
    true,
  );

  /** The path a request means: on a page's own host, `/x` is that page's `/status/{slug}/x`. */
  async function resolve(req: IncomingMessage, path: string): Promise<{ path: string; base: string | null }> {
    if (path.startsWith('/assets/') || path.startsWith('/status/')) return { path, base: null };
    const host = (req.headers.host ?? '').toLowerCase();
    if (!host) return { path, base: null };
    const slug = (await pageHosts(ctx)).get(host);
    if (slug === undefined) return { path, base: null };
    return { path: `/status/${slug}${path === '/' ? '' : path}`, base: '' };
  }

  function prepare(reply: PublicReply, cacheable: boolean): Rendered {
    const body = reply.body === undefined ? Buffer.alloc(0) : typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
    const etag = cacheable && reply.status === 200 ? etagOf(body) : null;
    const unchanged: Record<string, string | number> = {
      ...SECURITY_HEADERS,
      'Cache-Control': etag ? PAGE_CACHE_CONTROL : 'no-store',
      ...reply.headers,
      ...(etag ? { ETag: etag } : {}),
    };
    const headers = { ...unchanged, ...(reply.contentType ? { 'Content-Type': reply.contentType } : {}), 'Content-Length': body.length };
    return { status: reply.status, body, etag, headers, unchanged };
  }

  /** An error of the Statuspage API, in the API's error shape. */
  function jsonError(error: unknown): Rendered {
    const rendered = renderError(error);
    return prepare(
      { status: rendered.status, contentType: JSON_TYPE, headers: { ...rendered.headers, ...CROSS_ORIGIN }, body: JSON.stringify(rendered.body) },
      false,
    );
  }

  function send(req: IncomingMessage, res: ServerResponse, entry: Rendered): void {
    const known = entry.etag ? req.headers['if-none-match'] : undefined;
    if (known?.split(/\s*,\s*/).includes(entry.etag!)) {
      res.writeHead(304, entry.unchanged);
      res.end();
      return;
    }
    res.writeHead(entry.status, entry.headers);
    res.end(entry.body);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams, trace?: RequestTrace): Promise<boolean> {
    if (rawPath.startsWith('/assets/statusbot.css')) {
      if (trace) trace.route = '/assets/statusbot.css';
      send(req, res, stylesheet);
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
        send(req, res, prepare({ status: 204, headers: PREFLIGHT }, false));
        return true;
      }
      const hit = table.find(req.method ?? 'GET', path);
      if (!hit) {
        if (statuspageApi) throw new HttpProblem('route_not_found', 'No such document');
        return false;
      }
      if (trace) trace.route = (hit.route ?? hit.declared).path;
      if (statuspageApi && hit.route === null) throw new HttpProblem('method_not_allowed', `${req.method} is not allowed here; use GET`, { Allow: 'GET' });
      if (hit.route === null) {
        send(req, res, prepare(errorReply(405, 'Method not allowed', `${req.method} is not allowed here; use ${hit.allow}.`, { Allow: hit.allow }), false));
        return true;
      }
      const slug = hit.params.slug;
      const request = async (): Promise<PublicRequest> => ({
        // Changes made from a public page (sign-ups, confirmations) are the page's visitors'.
        ctx: ctx.actingAs({ actor: 'page', requestId: trace?.id ?? null }),
        method: req.method as PublicRequest['method'],
        params: hit.params,
        query,
        headers: req.headers,
        body: await readForm(req),
        clientAddress: clientAddress(req),
        base: base ?? (slug !== undefined ? `/status/${encodeURIComponent(slug)}` : ''),
      });
      if (!hit.route.cacheable) {
        // A GET that acts (a confirmation link) acts on GET only: HEAD, as link checkers send it, changes nothing.
        if (req.method === 'HEAD') {
          send(req, res, prepare(errorReply(405, 'Method not allowed', 'HEAD is not answered here; use GET.', { Allow: 'GET' }), false));
          return true;
        }
        send(req, res, prepare(await hit.route.handle(await request()), false));
        return true;
      }
      // Taken before rendering: a change made meanwhile makes the entry stale at once.
      const epoch = await readEpoch(ctx);
      const search = query.size === 0 ? '' : `?${query.toString()}`;
      const key = base === null ? `${path}${search}` : `${base} ${path}${search}`;
      let entry = rendered.get(key, epoch);
      if (!entry) {
        const reply = await hit.route.handle(await request());
        entry = prepare(hit.route.statuspageApi ? { ...reply, headers: { ...reply.headers, ...CROSS_ORIGIN } } : reply, true);
        rendered.set(key, epoch, entry);
      }
      send(req, res, entry);
    } catch (error) {
      if (statuspageApi && (error instanceof DomainError || error instanceof HttpProblem || isDatabaseUnavailable(error))) {
        send(req, res, jsonError(error));
        return true;
      }
      // A path segment holding NUL names nothing, like an unknown name.
      if ((error instanceof DomainError && error.code === 'not_found') || (error instanceof HttpProblem && error.code === 'route_not_found')) {
        send(req, res, prepare(errorReply(404, 'Not found', 'There is nothing at this address.'), false));
      } else if (error instanceof HttpProblem && error.code === 'bad_request') {
        send(req, res, prepare(errorReply(400, 'Bad request', `${error.message}.`), false));
      } else if (error instanceof HttpProblem && error.code === 'payload_too_large') {
        send(req, res, prepare(errorReply(413, 'Too large', error.message, error.headers), false));
      } else if (error instanceof DomainError && error.code === 'invalid_input') {
        send(req, res, prepare(errorReply(400, 'Not valid', error.message), false));
      } else if (isDatabaseUnavailable(error)) {
        send(req, res, prepare(errorReply(503, 'Unavailable', 'The status page cannot be shown right now. Please try again.', { 'Retry-After': '5' }), false));
      } else {
        throw error;
      }
    }
    return true;
  };
}
