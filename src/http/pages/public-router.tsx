import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DomainContext } from '../../domain/context.js';
import { isDatabaseUnavailable } from '../../db/database.js';
import { DomainError } from '../../domain/errors.js';
import { readEpoch } from '../../domain/read-epoch.js';
import { pageHosts } from '../../domain/status-pages/page-directory.js';
import { HttpProblem } from '../http-errors.js';
import type { PublicReply, PublicRequest, PublicRoute } from './public-route.js';
import { HTML } from './public-route.js';
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
const MAX_FORM_BYTES = 16 * 1024;

interface Compiled {
  route: PublicRoute;
  pattern: RegExp;
  names: string[];
}

function compile(route: PublicRoute): Compiled {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

interface Rendered {
  epoch: string;
  status: number;
  contentType: string;
  body: Buffer;
  etag: string;
  headers: Record<string, string>;
}

const etagOf = (body: Buffer): string => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

function readForm(req: IncomingMessage): Promise<Buffer> {
  if (req.method !== 'POST') return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        req.removeAllListeners('data');
        req.pause();
        reject(new HttpProblem('payload_too_large', `The form must not exceed ${MAX_FORM_BYTES} bytes`, { Connection: 'close' }));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Serves the public side: status pages (also at / of a page's own host),
 * tracker pages, feeds, subscriptions and the stylesheet. Cacheable answers are
 * rendered once per change of the database and answered with an ETag (304 when
 * the client has it). Returns false for paths it does not know, so that the
 * caller goes on with its own.
 */
export function createPublicRouter(ctx: DomainContext, routes: readonly PublicRoute[]) {
  const compiled = routes.map(compile);
  const rendered = new Map<string, Rendered>();
  const stylesheet = Buffer.from(STYLESHEET);

  function match(path: string): { route: PublicRoute; params: Record<string, string> }[] {
    const found = [];
    for (const c of compiled) {
      const m = c.pattern.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      try {
        c.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1] ?? '')));
      } catch {
        continue;
      }
      found.push({ route: c.route, params });
    }
    return found;
  }

  /** The path a request means: on a page's own host, `/x` is that page's `/status/{slug}/x`. */
  async function resolve(req: IncomingMessage, path: string): Promise<{ path: string; base: string | null }> {
    if (path.startsWith('/assets/') || path.startsWith('/status/')) return { path, base: null };
    const host = (req.headers.host ?? '').toLowerCase();
    if (!host) return { path, base: null };
    const slug = (await pageHosts(ctx)).get(host);
    if (slug === undefined) return { path, base: null };
    return { path: `/status/${slug}${path === '/' ? '' : path}`, base: '' };
  }

  function send(req: IncomingMessage, res: ServerResponse, reply: Rendered | (PublicReply & { etag?: string })): void {
    const body = reply.body === undefined ? undefined : typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
    const headers: Record<string, string | number> = { ...SECURITY_HEADERS, ...reply.headers };
    if (reply.contentType) headers['Content-Type'] = reply.contentType;
    if (reply.etag) {
      headers.ETag = reply.etag;
      headers['Cache-Control'] ??= PAGE_CACHE_CONTROL;
      if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(reply.etag) && reply.status === 200) {
        res.writeHead(304, headers);
        res.end();
        return;
      }
    } else headers['Cache-Control'] ??= 'no-store';
    headers['Content-Length'] = body?.length ?? 0;
    res.writeHead(reply.status, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse, rawPath: string, query: URLSearchParams): Promise<boolean> {
    if (rawPath.startsWith('/assets/statusbot.css')) {
      send(req, res, {
        status: 200,
        contentType: 'text/css; charset=utf-8',
        body: stylesheet,
        etag: etagOf(stylesheet),
        headers: { 'Cache-Control': 'public, max-age=31536000, immutable' },
      });
      return true;
    }
    const { path, base } = await resolve(req, rawPath);
    const candidates = match(path);
    if (candidates.length === 0) return false;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const hit = candidates.find((c) => c.route.method === method);
    try {
      if (!hit) {
        const allow = [...new Set(candidates.map((c) => c.route.method))].join(', ');
        send(req, res, errorReply(405, 'Method not allowed', `${req.method} is not allowed here; use ${allow}.`, { Allow: allow }));
        return true;
      }
      const slug = hit.params.slug;
      const request: PublicRequest = {
        ctx,
        method: req.method as PublicRequest['method'],
        params: hit.params,
        query,
        headers: req.headers,
        body: await readForm(req),
        clientAddress: req.socket.remoteAddress ?? 'unknown',
        base: base ?? (slug !== undefined ? `/status/${encodeURIComponent(slug)}` : ''),
      };
      if (!hit.route.cacheable) {
        send(req, res, await hit.route.handle(request));
        return true;
      }
      // Taken before rendering: a change made meanwhile makes the entry stale at once.
      const epoch = await readEpoch(ctx);
      const key = `${base ?? '-'} ${path}?${query.toString()}`;
      let entry = rendered.get(key);
      if (!entry || entry.epoch !== epoch) {
        const reply = await hit.route.handle(request);
        const body = reply.body === undefined ? Buffer.alloc(0) : typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
        entry = { epoch, status: reply.status, contentType: reply.contentType ?? HTML, body, etag: etagOf(body), headers: reply.headers ?? {} };
        if (rendered.size >= RENDERED_MAX) rendered.clear();
        rendered.set(key, entry);
      }
      send(req, res, entry);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') {
        send(req, res, errorReply(404, 'Not found', 'There is nothing at this address.'));
      } else if (error instanceof HttpProblem && error.code === 'payload_too_large') {
        send(req, res, errorReply(413, 'Too large', error.message, error.headers));
      } else if (error instanceof DomainError && error.code === 'invalid_input') {
        send(req, res, errorReply(400, 'Not valid', error.message));
      } else if (isDatabaseUnavailable(error)) {
        send(req, res, errorReply(503, 'Unavailable', 'The status page cannot be shown right now. Please try again.', { 'Retry-After': '5' }));
      } else {
        throw error;
      }
    }
    return true;
  };
}
