import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../infrastructure/logger.js';
import type { RawHandler } from '../infrastructure/raw-handler.js';
import type { DomainContext } from '../domain/context.js';
import { createApiHandler } from './api-handler.js';
import type { ApiHandler } from './api-handler.js';
import { API_PREFIX, UNDER_API } from './api-paths.js';
import { createCallerBudget } from './caller-budget.js';
import { HttpProblem, renderError } from './http-errors.js';
import type { MetricsEndpoint } from './metrics-endpoint.js';
import { createOwnRoutes } from './own-routes.js';
import type { ServerRoute } from './own-routes.js';
import { createPublicRouter } from './pages/public-router.js';
import type { PublicRouter } from './pages/public-router.js';
import type { PublicRoute } from './pages/public-route.js';
import { createClientAddress } from '../infrastructure/client-address.js';
import type { ClientAddress } from '../infrastructure/client-address.js';
import { ClientAbortedError } from './read-body.js';
import { TracedResponse, finishTrace, startTrace } from './request-trace.js';
import type { FinishedRequest, RequestTrace } from './request-trace.js';
import type { RouteTable } from './route-table.js';
import { methodNotAllowed } from './route-table.js';
import { sendReply } from './send-reply.js';

export interface HttpServerOptions {
  ctx: DomainContext;
  logger: Logger;
  /** Requests per minute per API key. */
  rateLimitPerMinute: number;
  /** Who sent a request, for limits by address (see http.trust_proxy); the socket's address by default. */
  clientAddress?: ClientAddress;
  /** Answers /healthz with 200 once true. */
  ready: () => boolean;
  /**
   * Why this process cannot serve requests now (GET /readyz answers 503 with it), or null when it can:
   * the composition root's probe of the database and its schema.
   */
  notReadyBecause: () => Promise<string | null>;
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

/** The three parts that answer requests, in the order they are asked. */
interface Fronts {
  own: RouteTable<ServerRoute>;
  api: ApiHandler;
  publicPages: PublicRouter;
  logger: Logger;
}

export function createHttpServer(options: HttpServerOptions): Server {
  const { ctx, logger } = options;
  const clientAddress = options.clientAddress ?? createClientAddress([]);
  const budget = createCallerBudget(options.rateLimitPerMinute, clientAddress);
  const fronts: Fronts = {
    own: createOwnRoutes({ ...options, budget }),
    api: createApiHandler(ctx, budget),
    publicPages: createPublicRouter(ctx, options.publicRoutes ?? [], clientAddress, options.onPageRendered),
    logger,
  };
  const server = createServer({ ServerResponse: TracedResponse }, (req, res) => {
    const trace = startTrace(req, res);
    res.once('close', () => finishTrace(trace, res, logger, options.onFinished));
    handle(fronts, req, res, trace).catch((error: unknown) => {
      logger.error('request failed while answering', error, { reqId: trace.id, method: trace.method, route: trace.route });
      res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  // A client that sends its request and then half-closes (FIN: `nc -q`, some proxies and health checkers) still reads the
  // answer. Node's default takes the FIN for an abort: it destroys the request and ends the socket, so an answer that
  // needed the database (every one on PostgreSQL) was never written, though a write had committed.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on('clientError', answerClientError);
  return server;
}

/**
 * The server's own routes first, then the API (which authenticates before it
 * routes; on a page's own host, after that page's Statuspage documents),
 * then the public pages.
 */
async function handle(fronts: Fronts, req: IncomingMessage, res: ServerResponse, trace: RequestTrace): Promise<void> {
  const path = trace.path;
  try {
    await route(fronts, req, res, trace);
  } catch (error) {
    // Nobody is left to answer; the request's line says it was aborted.
    if (error instanceof ClientAbortedError) return void res.destroy();
    const rendered = renderError(error);
    const fields = { reqId: trace.id, method: trace.method, route: trace.route, path };
    if (rendered.status === 503) fronts.logger.warn('the database cannot be reached', fields);
    else if (rendered.status >= 500) fronts.logger.error('request failed', error, fields);
    if (!res.headersSent) sendReply(res, rendered);
    else res.destroy();
  }
}

async function route(fronts: Fronts, req: IncomingMessage, res: ServerResponse, trace: RequestTrace): Promise<void> {
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  const path = trace.path;
  const query = () => new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
  // A public page asked again as it was before, while nothing has changed: the same answer, without routing.
  if (fronts.publicPages.answerRepeat(req, res, trace)) return;
  if (!path.startsWith('/')) throw new HttpProblem('bad_request', 'The request target must be a path, such as /api/v2/services');
  const found = fronts.own.find(req.method ?? 'GET', path);
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
    if (path.endsWith('.json') && (await fronts.publicPages.handle(req, res, path, query(), trace))) return;
    await fronts.api(req, path, query(), res, trace);
    return;
  }
  if (await fronts.publicPages.handle(req, res, path, query(), trace)) return;
  throw new HttpProblem('route_not_found', 'No such path');
}

/** Requests Node's HTTP parser refuses (a malformed request line, headers too large) get the error shape too. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const large = error.code === 'HPE_HEADER_OVERFLOW';
  const status = large ? 431 : 400;
  const title = large ? 'Request header fields too large' : 'Bad request';
  const detail = large ? 'The request headers are larger than the server accepts' : 'The request is not valid HTTP';
  const body = JSON.stringify({ errors: [{ status, title, detail }] });
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
