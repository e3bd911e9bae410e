import type { z } from 'zod';
import type { KeyKind } from '../domain/companies/api-keys.js';
import type { Company } from '../domain/model/company.js';
import type { DomainContext } from '../domain/context.js';

/* What an API route is: the table in routes.ts lists them (the probe agents' in agent-routes.ts). */

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface ApiRequest {
  ctx: DomainContext;
  company: Company;
  /** The id of the API key that authenticated the request. */
  keyId: number;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when none was sent. */
  body: unknown;
  /** The region of the probe agent whose token authenticated the request (see Route.caller); null for an API key. */
  agentRegion: string | null;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** A body that is not JSON, with its Content-Type. */
  text?: { type: string; body: string };
  headers?: Record<string, string>;
}

export interface Route {
  method: Method;
  /** Path under /api/v2 with `:name` segments. */
  path: string;
  /**
   * The answer depends only on the caller's company, the path and the
   * database's contents (see domain/read-epoch.ts), so it may be cached.
   */
  cacheable?: boolean;
  /**
   * Who may call it: a company's API key (absent), or a probe agent's token
   * (`agent`), which opens the routes that say so and nothing else.
   */
  caller?: KeyKind;
  doc: RouteDoc;
  handle(req: ApiRequest): Promise<Reply>;
}

/** What the API description (openapi.ts) says of a route. */
export interface RouteDoc {
  operationId: string;
  tag: 'Services' | 'Incidents' | 'Custom monitors' | 'Boards' | 'Maintenance' | 'Audit' | 'Alerts' | 'Probe agents';
  summary: string;
  description?: string;
  /** A schema for each `:name` of the path. */
  params?: Record<string, z.ZodType>;
  /** The query string, one parameter per key. */
  query?: z.ZodObject;
  /** The JSON body; `required` when an empty body is refused. */
  body?: { schema: z.ZodType; required: boolean; description?: string };
  /** The answer when it works: a schema of api-schemas.ts, none for an empty body. */
  success: {
    status: 200 | 201 | 202 | 204;
    description: string;
    schema?: z.ZodType;
    /** The answer's media type when it is not JSON (then `Reply.text` carries it). */
    mediaType?: string;
    headers?: Record<string, string>;
  };
  /**
   * When the domain refuses, by status. openapi.ts adds those of HTTP itself:
   * 400 (body, path encoding), 401, 413 (body), 422 (invalid fields), 429, 503.
   */
  errors?: Partial<Record<403 | 404 | 422, string>>;
}
