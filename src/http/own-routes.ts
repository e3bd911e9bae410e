import type { IncomingMessage, ServerResponse } from 'node:http';
import { recordHeartbeat } from '../domain/monitors/heartbeats.js';
import type { DomainContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import type { RawHandler } from '../infrastructure/raw-handler.js';
import { API_DOCS_PATH, createApiDocs } from './api-docs.js';
import { API_PREFIX, MAX_BODY_BYTES, OPENAPI_PATH } from './api-paths.js';
import type { CallerBudget } from './caller-budget.js';
import { METRICS_PATH } from './metrics-endpoint.js';
import type { MetricsEndpoint } from './metrics-endpoint.js';
import { buildOpenApiDocument } from './openapi.js';
import { readBody } from './read-body.js';
import { createRouteTable } from './route-table.js';
import type { RouteTable, TableRoute } from './route-table.js';
import { routes } from './routes.js';
import { sendJson, sendReply } from './send-reply.js';

const HEARTBEAT_PATH = `${API_PREFIX}/heartbeats/:token`;

/** A route of the server's own, beside the API and the public pages. */
export interface ServerRoute extends TableRoute {
  /** How logs and metrics name the route. */
  label: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void> | void;
}

export interface OwnRoutesOptions {
  ctx: DomainContext;
  budget: CallerBudget;
  /** Whether the process has started (liveness). */
  ready: () => boolean;
  /** Why the process cannot serve requests now, or null when it can (readiness). */
  notReadyBecause: () => Promise<string | null>;
  rawHandlers?: Record<string, RawHandler>;
  metrics?: MetricsEndpoint;
  /** The region named in the incidents of heartbeat monitors. */
  region?: string;
}

/** The server's own routes: the API's description and reference, chat webhooks, health, readiness, heartbeats, metrics. */
export function createOwnRoutes(options: OwnRoutesOptions): RouteTable<ServerRoute> {
  const apiDocs = createApiDocs();
  let openApi: Buffer | undefined;
  const heartbeat = heartbeatRoute(options);
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
    { method: 'GET', path: '/healthz', label: '/healthz', handle: healthz(options.ready) },
    { method: 'GET', path: '/readyz', label: '/readyz', handle: readyz(options.notReadyBecause) },
    ...(['GET', 'POST'] as const).map((method): ServerRoute => ({ method, path: HEARTBEAT_PATH, label: HEARTBEAT_PATH, handle: heartbeat })),
  ];
  if (options.metrics) ownRoutes.push(metricsRoute(options.metrics, options.budget));
  return createRouteTable(ownRoutes);
}

/** Liveness: the process has started and answers. A database outage is no reason to restart it (see /readyz). */
const healthz =
  (ready: () => boolean) =>
  (_req: IncomingMessage, res: ServerResponse): void => {
    sendReply(res, ready() ? { status: 200, body: { status: 'ok' } } : { status: 503, body: { status: 'starting' } });
  };

/** Readiness: whether this process can serve requests now, and if not, why. */
const readyz =
  (notReadyBecause: () => Promise<string | null>) =>
  async (_req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const reason = await notReadyBecause();
    sendReply(res, reason === null ? { status: 200, body: { status: 'ready' } } : { status: 503, body: { status: 'not ready', reason } });
  };

/** A cron job's ping: the token is its only credential, so a wrong one costs as a wrong key does. */
function heartbeatRoute(options: Pick<OwnRoutesOptions, 'ctx' | 'budget' | 'region'>): ServerRoute['handle'] {
  return async (req, res) => {
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
      await recordHeartbeat(options.ctx, token, { down: query.get('status') === 'down', message: query.get('msg') }, options.region ?? 'local');
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') options.budget.chargeWrongGuess(req);
      throw error;
    }
    sendReply(res, { status: 204 });
  };
}

function metricsRoute(metrics: MetricsEndpoint, budget: CallerBudget): ServerRoute {
  return {
    method: 'GET',
    path: METRICS_PATH,
    label: METRICS_PATH,
    handle: async (req, res) => {
      try {
        await metrics(req, res);
      } catch (error) {
        // Guessing the metrics token costs as guessing keys does.
        if (error instanceof DomainError && error.code === 'unauthorized') budget.chargeWrongGuess(req);
        throw error;
      }
    },
  };
}
