import type { IncomingHttpHeaders } from 'node:http';
import type { DomainContext } from '../../domain/context.js';

/** A request for a public page (no API key): status pages, tracker pages, feeds, subscriptions. */
export interface PublicRequest {
  ctx: DomainContext;
  method: 'GET' | 'HEAD' | 'POST';
  /** `:name` segments of the route's path, decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body (forms are application/x-www-form-urlencoded). */
  body: Buffer;
  /** The client's address (for rate limits). */
  clientAddress: string;
  /**
   * Where the page's own links start: `/status/{slug}` when served under
   * statusbot's public_url, '' when served at / of the page's own host.
   */
  base: string;
}

export interface PublicReply {
  status: number;
  /** e.g. `text/html; charset=utf-8`. */
  contentType?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /**
   * When what the answer shows last changed (not when it was rendered), for
   * Last-Modified and If-Modified-Since; absent when the route cannot tell.
   */
  lastModified?: Date;
  /**
   * The answer also shows what `lastModified` does not date (monitors,
   * vendors, what moves on with the clock): Last-Modified is then never
   * earlier than when this very answer was first rendered.
   */
  undatedParts?: boolean;
}

export interface PublicRoute {
  method: 'GET' | 'POST';
  /** Absolute path with `:name` segments, e.g. `/status/:slug/incidents/:id`. */
  path: string;
  /**
   * The answer depends only on the path, the query and the database (see
   * domain/read-epoch.ts): it is rendered once per change, served with an ETag.
   */
  cacheable?: boolean;
  /**
   * Part of the Statuspage-compatible API: readable from any origin (CORS,
   * with preflight), its errors in the API's JSON error shape.
   */
  statuspageApi?: boolean;
  /**
   * The query parameters a cacheable answer depends on. It is handed only
   * these, and cached once per their values: any other parameter (a tracking
   * tag) is ignored rather than rendered into a copy of its own.
   */
  queryKeys?: readonly string[];
  handle(req: PublicRequest): Promise<PublicReply>;
}

export const HTML = 'text/html; charset=utf-8';
export const JSON_TYPE = 'application/json; charset=utf-8';

/** A 303 to another page (after a form post). */
export const seeOther = (location: string): PublicReply => ({ status: 303, headers: { Location: location } });
