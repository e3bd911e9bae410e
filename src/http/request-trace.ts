import { randomUUID } from 'node:crypto';
import { ServerResponse } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../infrastructure/logger.js';

/** What is known of a request while it is answered; the parts that answer it fill in the route and the company. */
export interface RequestTrace {
  /** From the client's `X-Request-Id` when it is a sensible one, else made here; echoed in the answer. */
  readonly id: string;
  readonly method: string;
  /** Without the query, which may hold tokens. */
  readonly path: string;
  readonly startedAt: number;
  /** The route pattern matched (`/api/v2/incidents/:id`), so that ids do not spread one route over many series. */
  route: string;
  companyId: number | null;
}

/** One line and one observation per request, once its answer is sent or the client left. */
export interface FinishedRequest {
  id: string;
  method: string;
  route: string;
  path: string;
  /** 499 when the client closed the connection before the answer was complete. */
  status: number;
  durationMs: number;
  companyId: number | null;
  aborted: boolean;
}

/** Routes nobody matched share one name. */
export const UNMATCHED_ROUTE = '(unmatched)';

const SENSIBLE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Ids made here: a random UUID's first 20 hex digits (74 random bits), drawn once per process, then
 * the request's number in 12 hex digits: unique across replicas and restarts
 * as a UUID is, in the same form, and in the order the requests came. A
 * random UUID per request cost a noticeable share of a cached page.
 */
const ID_PREFIX = randomUUID().slice(0, 24);
let madeIds = 0;
const madeId = (): string => `${ID_PREFIX}${(++madeIds).toString(16).padStart(12, '0')}`;
/** The method as a label: anything else a client invents is one value. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * An answer that carries its request's id as `X-Request-Id`, added to the
 * headers it is written with. Set beforehand with `setHeader`, the id would
 * make Node take every header of the answer one by one again, a cost paid by
 * every request however cheap its answer is.
 */
export class TracedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  requestId: string | null = null;

  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    maybeHeaders?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
    const headers = typeof reasonOrHeaders === 'string' ? maybeHeaders : reasonOrHeaders;
    const id = this.requestId;
    if (id === null) return super.writeHead(statusCode, reason, headers);
    if (headers === undefined || headers === null || Array.isArray(headers)) {
      // Headers set one by one, or given as a list: the id joins them the same way.
      this.setHeader('X-Request-Id', id);
      return super.writeHead(statusCode, reason, headers);
    }
    // A flat list of names and values, which Node takes as it takes an object: a copy of the object (spread) costs
    // several times as much, made anew per request.
    const list: OutgoingHttpHeader[] = [];
    for (const name in headers) list.push(name, headers[name] as OutgoingHttpHeader);
    list.push('X-Request-Id', id);
    return super.writeHead(statusCode, reason, list);
  }
}

export function startTrace(req: IncomingMessage, res: TracedResponse): RequestTrace {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && SENSIBLE_ID.test(given) ? given : madeId();
  res.requestId = id;
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  return {
    id,
    method: METHODS.has(req.method ?? '') ? req.method! : 'OTHER',
    path: q === -1 ? target : target.slice(0, q),
    startedAt: performance.now(),
    route: UNMATCHED_ROUTE,
    companyId: null,
  };
}

/** Logs the request once it is over (at debug when the client left early) and hands it to `observe`. */
export function finishTrace(trace: RequestTrace, res: ServerResponse, logger: Logger, observe?: (finished: FinishedRequest) => void): void {
  const aborted = !res.writableFinished;
  const finished: FinishedRequest = {
    id: trace.id,
    method: trace.method,
    route: trace.route,
    path: trace.path,
    status: aborted ? 499 : res.statusCode,
    durationMs: Math.round((performance.now() - trace.startedAt) * 1000) / 1000,
    companyId: trace.companyId,
    aborted,
  };
  const fields = {
    reqId: finished.id,
    method: finished.method,
    route: finished.route,
    path: finished.path,
    status: finished.status,
    durationMs: finished.durationMs,
    companyId: finished.companyId,
  };
  if (aborted) logger.debug('request aborted by the client', fields);
  else logger.info('request', fields);
  observe?.(finished);
}
