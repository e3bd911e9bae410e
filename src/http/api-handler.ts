import type { IncomingMessage, ServerResponse } from 'node:http';
import { admitKey, lookUpKey } from '../domain/companies/api-keys.js';
import type { DomainContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { readEpoch } from '../domain/read-epoch.js';
import { isDatabaseUnavailable } from '../infrastructure/database-unavailable.js';
import { API_PREFIX, MAX_BODY_BYTES } from './api-paths.js';
import type { CallerBudget } from './caller-budget.js';
import { HttpProblem } from './http-errors.js';
import { parseJsonBody } from './json-body.js';
import { readBody } from './read-body.js';
import type { RequestTrace } from './request-trace.js';
import { createMakingOnce, createResponseCache } from './response-cache.js';
import type { ResponseCache } from './response-cache.js';
import { createRouteTable, methodNotAllowed } from './route-table.js';
import type { TableRoute } from './route-table.js';
import { routes } from './routes.js';
import type { Reply, Route } from './routes.js';
import { sendJson, sendReply } from './send-reply.js';

interface ApiRoute extends TableRoute {
  route: Route;
  /** The full path pattern, as logs and metrics name the route. */
  label: string;
}

const apiRoutes = createRouteTable<ApiRoute>(routes.map((route) => ({ method: route.method, path: route.path, route, label: `${API_PREFIX}${route.path}` })));

const RESPONSE_CACHE_MAX = 10_000;

/** Answers a request under /api/v2. */
export type ApiHandler = (req: IncomingMessage, path: string, query: URLSearchParams, res: ServerResponse, trace: RequestTrace) => Promise<void>;

/** What the API's answers share across requests: the budget of callers and the answers of cacheable routes. */
interface ApiState {
  ctx: DomainContext;
  budget: CallerBudget;
  /** Answers of cacheable routes, per company and path. */
  cache: ResponseCache<Buffer>;
  readOnce: ReturnType<typeof createMakingOnce<Buffer | Reply>>;
}

type Caller = { key: string } & Awaited<ReturnType<typeof lookUpKey>>;

export function createApiHandler(ctx: DomainContext, budget: CallerBudget): ApiHandler {
  const state: ApiState = { ctx, budget, cache: createResponseCache<Buffer>(RESPONSE_CACHE_MAX), readOnce: createMakingOnce<Buffer | Reply>() };
  return (req, path, query, res, trace) => handleApi(state, req, path, query, res, trace);
}

function bearerKey(req: IncomingMessage): string {
  const header = req.headers.authorization;
  const m = header ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  if (!m) throw new DomainError('unauthorized', 'The Authorization header must be "Bearer <API_KEY>"');
  return m[1]!;
}

/** An API key or a probe agent's token (each route says which it admits); guessing them costs from the caller's address's budget. */
async function authenticated(state: ApiState, req: IncomingMessage): Promise<Caller> {
  try {
    const key = bearerKey(req);
    return { key, ...(await lookUpKey(state.ctx, key)) };
  } catch (error) {
    // A key that could not be looked up (the database refusing) was no guess.
    if (!isDatabaseUnavailable(error)) state.budget.chargeWrongGuess(req);
    throw error;
  }
}

/** The route for the caller: a probe agent's token opens the routes that admit it and nothing else, not even to be told a path is unknown. */
function routeFor(state: ApiState, req: IncomingMessage, path: string, caller: Caller) {
  let found: ReturnType<typeof apiRoutes.find>;
  try {
    found = apiRoutes.find(req.method ?? 'GET', path.slice(API_PREFIX.length) || '/');
  } catch (error) {
    if (caller.agentRegion === null) throw error;
    found = undefined;
  }
  try {
    admitKey(caller, found?.route?.route.caller ?? 'company');
  } catch (error) {
    state.budget.chargeWrongGuess(req);
    throw error;
  }
  return found;
}

/** Authenticates before anything else, the body included: a stranger's body is never read, however large it says it is. */
async function handleApi(state: ApiState, req: IncomingMessage, path: string, query: URLSearchParams, res: ServerResponse, trace: RequestTrace): Promise<void> {
  const { ctx } = state;
  const caller = await authenticated(state, req);
  const { key, company, keyId, agentRegion } = caller;
  const found = routeFor(state, req, path, caller);
  trace.companyId = company.id;
  state.budget.take(`key:${key}`);
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
    sendReply(res, await route.handle({ ctx: acting, company, keyId, agentRegion, params, query, body }));
    return;
  }
  await answerCached(state, res, `${company.id} ${path}`, () => route.handle({ ctx, company, keyId, agentRegion, params, query, body }));
}

/** A cacheable read: from the cache while nothing changed, else read once for the requests that ask together. */
async function answerCached(state: ApiState, res: ServerResponse, cacheKey: string, read: () => Promise<Reply>): Promise<void> {
  // Taken before reading, so that a change made meanwhile makes the entry stale at once.
  const epoch = readEpoch(state.ctx);
  const hit = state.cache.get(cacheKey, epoch);
  if (hit) {
    sendJson(res, 200, hit);
    return;
  }
  // Only a plain 200 is kept.
  const made = await state.readOnce(cacheKey, epoch, async () => {
    const reply = await read();
    if (reply.status !== 200 || reply.headers) return reply;
    const payload = Buffer.from(JSON.stringify(reply.body));
    state.cache.set(cacheKey, epoch, payload);
    return payload;
  });
  if (Buffer.isBuffer(made)) sendJson(res, 200, made);
  else sendReply(res, made);
}
