import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../infrastructure/logger.js';
import { isDatabaseUnavailable } from '../db/database.js';
import { notReadyBecause } from './readiness.js';
import type { RawHandler } from '../infrastructure/raw-handler.js';
import { admitKey, lookUpKey } from '../domain/companies/api-keys.js';
import type { DomainContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { readEpoch } from '../domain/read-epoch.js';
import { recordHeartbeat } from '../domain/monitors/heartbeats.js';
import { API_DOCS_PATH, createApiDocs } from './api-docs.js';
import { HttpProblem, renderError } from './http-errors.js';
import { METRICS_PATH } from './metrics-endpoint.js';
import type { MetricsEndpoint } from './metrics-endpoint.js';
import { buildOpenApiDocument } from './openapi.js';
import { createPublicRouter } from './pages/public-router.js';
import type { PublicRoute } from './pages/public-route.js';
import { createClientAddress } from '../infrastructure/client-address.js';
import type { ClientAddress } from '../infrastructure/client-address.js';
import { createRateLimiter } from '../infrastructure/rate-limiter.js';
import { ClientAbortedError, endAnswer, readBody } from './read-body.js';
import { createMakingOnce, createResponseCache } from './response-cache.js';
import { createRouteTable, methodNotAllowed } from './route-table.js';
import type { TableRoute } from './route-table.js';
import { TracedResponse, finishTrace, startTrace } from './request-trace.js';
import type { FinishedRequest, RequestTrace } from './request-trace.js';
import { routes } from './routes.js';
import type { Reply, Route } from './routes.js';

export const API_PREFIX = '/api/v2';
const HEARTBEAT_PATH = `${API_PREFIX}/heartbeats/:token`;
const UNDER_API = `${API_PREFIX}/`;
export const MAX_BODY_BYTES = 1024 * 1024;
/** The API description, served without an API key. */
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

export interface HttpServerOptions {
  ctx: DomainContext;
  logger: Logger;
  /** Requests per minute per API key. */
  rateLimitPerMinute: number;
  /** Who sent a request, for limits by address (see http.trust_proxy); the socket's address by default. */
  clientAddress?: ClientAddress;
  /** Answers /healthz with 200 once true. */
  ready: () => boolean;
  rawHandlers?: Record<string, RawHandler>;
  /** The public pages (status pages, tracker pages, feeds, subscriptions). */
  publicRoutes?: readonly PublicRoute[];
  /** Called with the route's path each time a public page is rendered rather than served from the cache (metrics). */
  onPageRendered?: (route: string) => void;
  /** Called once per request, after its log line (metrics). */
  onFinished?: (finished: FinishedRequest) => void;
  /** Answers GET /metrics (Prometheus); without it, /metrics is not found. */
  metrics?: MetricsEndpoint;
  /** The region named in the incidents of heartbeat monitors, pushed to this server. */
  region?: string;
}

/** A route of the server's own, beside the API and the public pages. */
interface ServerRoute extends TableRoute {
  /** How logs and metrics name the route. */
  label: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void> | void;
}

interface ApiRoute extends TableRoute {
  route: Route;
  /** The full path pattern, as logs and metrics name the route. */
  label: string;
}

const apiRoutes = createRouteTable<ApiRoute>(routes.map((route) => ({ method: route.method, path: route.path, route, label: `${API_PREFIX}${route.path}` })));

const JSON_TYPE = /^application\/(?:[a-z0-9.+-]*\+)?json\s*(?:;|$)/i;

/**
 * JSON is UTF-8 (RFC 8259): a body that is not is refused, as a path that is not is, rather than stored with
 * U+FFFD in place of what was sent. A byte-order mark is kept, for JSON.parse to refuse as before.
 */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The JSON object in the body; undefined for an empty body. */
function parseJsonBody(req: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const type = req.headers['content-type'];
  if (!type || !JSON_TYPE.test(type)) {
    throw new HttpProblem('bad_request', 'The body must be JSON, sent with Content-Type: application/json');
  }
  let text: string;
  try {
    text = STRICT_UTF8.decode(raw);
  } catch {
    throw new HttpProblem('bad_request', 'The body is not valid UTF-8');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new HttpProblem('bad_request', `The body is not valid JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpProblem('bad_request', 'The body must be a JSON object');
  }
  return parsed;
}

function bearerKey(req: IncomingMessage): string {
  const header = req.headers.authorization;
  const m = header ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  if (!m) throw new DomainError('unauthorized', 'The Authorization header must be "Bearer <API_KEY>"');
  return m[1]!;
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply.text) {
    res.writeHead(reply.status, { ...reply.headers, 'Content-Type': reply.text.type, 'Content-Length': Buffer.byteLength(reply.text.body) });
    res.end(reply.text.body);
    return;
  }
  if (reply.body === undefined) {
    res.writeHead(reply.status, reply.headers);
    res.end();
    return;
  }
  sendJson(res, reply.status, JSON.stringify(reply.body), reply.headers);
}

function sendJson(res: ServerResponse, status: number, payload: string | Buffer, headers?: Record<string, string>): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length,
  });
  endAnswer(res, payload);
}

const RESPONSE_CACHE_MAX = 10_000;

export function createHttpServer(options: HttpServerOptions): Server {
  const { ctx, logger } = options;
  const limiter = createRateLimiter(options.rateLimitPerMinute);
  /** Answers of cacheable routes, per company and path. */
  const cache = createResponseCache<Buffer>(RESPONSE_CACHE_MAX);
  const readOnce = createMakingOnce<Buffer | Reply>();
  const clientAddress = options.clientAddress ?? createClientAddress([]);
  const publicPages = createPublicRouter(ctx, options.publicRoutes ?? [], clientAddress, options.onPageRendered);
  const apiDocs = createApiDocs();
  let openApi: Buffer | undefined;

  function takeToken(caller: string): void {
    const limit = limiter.take(caller, Date.now());
    if (limit.retryAfterSeconds > 0) {
      throw new HttpProblem('rate_limited', `Rate limit of ${options.rateLimitPerMinute} requests per minute exceeded`, {
        'Retry-After': String(limit.retryAfterSeconds),
      });
    }
  }

  /** A wrong key or token costs from the caller's address's budget (429 once it is spent). */
  function chargeWrongGuess(req: IncomingMessage): void {
    takeToken(`address:${clientAddress(req)}`);
  }

  /** An API key or a probe agent's token (each route says which it admits); guessing them costs from the caller's address's budget. */
  async function authenticated(req: IncomingMessage) {
    try {
      const key = bearerKey(req);
      return { key, ...(await lookUpKey(ctx, key)) };
    } catch (error) {
      // A key that could not be looked up (the database refusing) was no guess.
      if (!isDatabaseUnavailable(error)) chargeWrongGuess(req);
      throw error;
    }
  }

  /** Liveness: the process has started and answers. A database outage is no reason to restart it (see /readyz). */
  const healthz = (_req: IncomingMessage, res: ServerResponse): void => {
    send(res, options.ready() ? { status: 200, body: { status: 'ok' } } : { status: 503, body: { status: 'starting' } });
  };
  /** Readiness: whether this process can serve requests now, and if not, why. */
  const readyz = async (_req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const reason = await notReadyBecause(ctx.db, options.ready());
    send(res, reason === null ? { status: 200, body: { status: 'ready' } } : { status: 503, body: { status: 'not ready', reason } });
  };
  /** A cron job's ping: the token is its only credential, so a wrong one costs as a wrong key does. */
  const heartbeat = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const query = new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
    const path = q === -1 ? target : target.slice(0, q);
    let token: string;
    try {
      token = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
    } catch {
      token = '';
    }
    // The body says nothing; it is read away so that the connection can be kept.
    await readBody(req, MAX_BODY_BYTES);
    try {
      await recordHeartbeat(ctx, token, { down: query.get('status') === 'down', message: query.get('msg') }, options.region ?? 'local');
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') chargeWrongGuess(req);
      throw error;
    }
    send(res, { status: 204 });
  };
  const ownRoutes: ServerRoute[] = [
    {
      method: 'GET',
      path: OPENAPI_PATH,
      label: OPENAPI_PATH,
      handle: (_req, res) => {
        openApi ??= Buffer.from(JSON.stringify(buildOpenApiDocument(routes)));
        sendJson(res, 200, openApi);
      },
    },
    ...apiDocs.paths.map((path): ServerRoute => ({ method: 'GET', path, label: API_DOCS_PATH, handle: (req, res) => apiDocs.serve(req, res, path) })),
    ...Object.entries(options.rawHandlers ?? {}).map(
      ([path, raw]): ServerRoute => ({ method: 'POST', path, label: path, handle: async (req, res) => raw(req, res, await readBody(req, MAX_BODY_BYTES)) }),
    ),
    { method: 'GET', path: '/healthz', label: '/healthz', handle: healthz },
    { method: 'GET', path: '/readyz', label: '/readyz', handle: readyz },
    ...(['GET', 'POST'] as const).map((method): ServerRoute => ({ method, path: HEARTBEAT_PATH, label: HEARTBEAT_PATH, handle: heartbeat })),
  ];
  const metrics = options.metrics;
  if (metrics) {
    ownRoutes.push({
      method: 'GET',
      path: METRICS_PATH,
      label: METRICS_PATH,
      handle: async (req, res) => {
        try {
          await metrics(req, res);
        } catch (error) {
          // Guessing the metrics token costs as guessing keys does.
          if (error instanceof DomainError && error.code === 'unauthorized') chargeWrongGuess(req);
          throw error;
        }
      },
    });
  }
  const own = createRouteTable(ownRoutes);

  /** Authenticates before anything else, the body included: a stranger's body is never read, however large it says it is. */
  async function handleApi(req: IncomingMessage, path: string, query: URLSearchParams, res: ServerResponse, trace: RequestTrace) {
    const caller = await authenticated(req);
    const { key, company, keyId, agentRegion } = caller;
    let found: ReturnType<typeof apiRoutes.find>;
    try {
      found = apiRoutes.find(req.method ?? 'GET', path.slice(API_PREFIX.length) || '/');
    } catch (error) {
      if (agentRegion === null) throw error;
      found = undefined;
    }
    // A probe agent's token opens the routes that admit it and nothing else: no other path, not even to be told it is unknown.
    try {
      admitKey(caller, found?.route?.route.caller ?? 'company');
    } catch (error) {
      chargeWrongGuess(req);
      throw error;
    }
    trace.companyId = company.id;
    takeToken(`key:${key}`);
    if (!found) throw new HttpProblem('route_not_found', 'No such path');
    if (found.route === null) throw methodNotAllowed(req.method, found);
    const { route, label } = found.route;
    const params = found.params;
    trace.route = label;
    const raw = await readBody(req, MAX_BODY_BYTES);
    const body = route.method === 'POST' || route.method === 'PATCH' ? parseJsonBody(req, raw) : undefined;
    if (!route.cacheable) {
      // Changes are made on behalf of the key, within this request (the audit trail says both).
      const acting = ctx.actingAs({ actor: `api_key:${keyId}`, requestId: trace.id });
      send(res, await route.handle({ ctx: acting, company, keyId, agentRegion, params, query, body }));
      return;
    }
    // Taken before reading, so that a change made meanwhile makes the entry stale at once.
    const epoch = readEpoch(ctx);
    const cacheKey = `${company.id} ${path}`;
    const hit = cache.get(cacheKey, epoch);
    if (hit) {
      sendJson(res, 200, hit);
      return;
    }
    // Read once for the requests that ask together; only a plain 200 is kept.
    const made = await readOnce(cacheKey, epoch, async () => {
      const reply = await route.handle({ ctx, company, keyId, agentRegion, params, query, body });
      if (reply.status !== 200 || reply.headers) return reply;
      const payload = Buffer.from(JSON.stringify(reply.body));
      cache.set(cacheKey, epoch, payload);
      return payload;
    });
    if (Buffer.isBuffer(made)) sendJson(res, 200, made);
    else send(res, made);
  }

  /**
   * The server's own routes first, then the API (which authenticates before it
   * routes; on a page's own host, after that page's Statuspage documents),
   * then the public pages.
   */
  async function handle(req: IncomingMessage, res: ServerResponse, trace: RequestTrace): Promise<void> {
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = trace.path;
    try {
      // A public page asked again as it was before, while nothing has changed: the same answer, without routing.
      if (publicPages.answerRepeat(req, res, trace)) return;
      if (!path.startsWith('/')) throw new HttpProblem('bad_request', 'The request target must be a path, such as /api/v2/services');
      const found = own.find(req.method ?? 'GET', path);
      if (found) {
        if (found.route === null) {
          trace.route = found.declared.label;
          throw methodNotAllowed(req.method, found);
        }
        trace.route = found.route.label;
        await found.route.handle(req, res);
        return;
      }
      if (path === API_PREFIX || path.startsWith(UNDER_API)) {
        // At the root of a status page's own host, its Statuspage documents (public, all named *.json, which no API path is) come first.
        if (path.endsWith('.json') && (await publicPages.handle(req, res, path, new URLSearchParams(q === -1 ? '' : target.slice(q + 1)), trace))) return;
        await handleApi(req, path, new URLSearchParams(q === -1 ? '' : target.slice(q + 1)), res, trace);
        return;
      }
      if (await publicPages.handle(req, res, path, new URLSearchParams(q === -1 ? '' : target.slice(q + 1)), trace)) return;
      throw new HttpProblem('route_not_found', 'No such path');
    } catch (error) {
      // Nobody is left to answer; the request's line says it was aborted.
      if (error instanceof ClientAbortedError) return void res.destroy();
      const rendered = renderError(error);
      const fields = { reqId: trace.id, method: trace.method, route: trace.route, path };
      if (rendered.status === 503) logger.warn('the database cannot be reached', fields);
      else if (rendered.status >= 500) logger.error('request failed', error, fields);
      if (!res.headersSent) send(res, rendered);
      else res.destroy();
    }
  }

  const server = createServer({ ServerResponse: TracedResponse }, (req, res) => {
    const trace = startTrace(req, res);
    res.once('close', () => finishTrace(trace, res, logger, options.onFinished));
    handle(req, res, trace).catch((error: unknown) => {
      logger.error('request failed while answering', error, { reqId: trace.id, method: trace.method, route: trace.route });
      res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  // A client that sends its request and then half-closes (FIN: `nc -q`, some proxies and health checkers) still reads the
  // answer. Node's default takes the FIN for an abort: it destroys the request and ends the socket, so an answer that
  // needed the database (every one on PostgreSQL) was never written, though a write had committed.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // Requests Node's HTTP parser refuses (a malformed request line, headers too large) get the error shape too.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    const large = error.code === 'HPE_HEADER_OVERFLOW';
    const status = large ? 431 : 400;
    const title = large ? 'Request header fields too large' : 'Bad request';
    const detail = large ? 'The request headers are larger than the server accepts' : 'The request is not valid HTTP';
    const body = JSON.stringify({ errors: [{ status, title, detail }] });
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
