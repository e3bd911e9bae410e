import { isDatabaseUnavailable } from '../infrastructure/database-unavailable.js';
import { DomainError } from '../domain/errors.js';
import type { FieldIssue } from '../domain/errors.js';

/** Failures of the HTTP exchange itself, before or around the domain. */
export type HttpProblemCode = 'bad_request' | 'payload_too_large' | 'method_not_allowed' | 'rate_limited' | 'route_not_found';

export class HttpProblem extends Error {
  readonly code: HttpProblemCode;
  readonly headers: Record<string, string>;
  constructor(code: HttpProblemCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpProblem';
    this.code = code;
    this.headers = headers;
  }
}

export interface ErrorObject {
  status: number;
  title: string;
  detail: string;
  source?: { pointer: string } | { parameter: string };
}

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: { errors: ErrorObject[] };
}

const NOT_FOUND_DETAIL = 'The resource you are looking for does not exist';

const single = (status: number, title: string, detail: string, headers: Record<string, string> = {}): RenderedError => ({
  status,
  headers,
  body: { errors: [{ status, title, detail }] },
});

function sourceOf(issue: FieldIssue): ErrorObject['source'] {
  if (issue.location === 'query') return { parameter: String(issue.path[0] ?? '') };
  if (issue.path.length === 0) return undefined;
  return { pointer: `/${issue.path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}` };
}

/**
 * The one mapping from any failure to the spec's error shape (section 7).
 */
export function renderError(error: unknown): RenderedError {
  if (error instanceof DomainError) {
    const code = error.code;
    switch (code) {
      case 'unauthorized':
        return single(401, 'Unauthorized access', 'You are not authorized to access this resource', {
          'WWW-Authenticate': 'Bearer',
        });
      case 'not_found':
        return single(404, 'Resource not found', NOT_FOUND_DETAIL);
      case 'forbidden':
        return single(403, 'Forbidden', error.message);
      case 'conflict':
        return single(422, 'Unprocessable entity', error.message);
      case 'invalid_input': {
        const issues = error.issues.length > 0 ? error.issues : [{ path: [], message: error.message }];
        return {
          status: 422,
          headers: {},
          body: {
            errors: issues.map((issue) => {
              const source = sourceOf(issue);
              return { status: 422, title: 'Unprocessable entity', detail: issue.message, ...(source ? { source } : {}) };
            }),
          },
        };
      }
      default: {
        const unhandled: never = code;
        throw new Error(`unmapped domain error ${String(unhandled)}`);
      }
    }
  }
  if (error instanceof HttpProblem) {
    const code = error.code;
    switch (code) {
      case 'bad_request':
        return single(400, 'Bad request', error.message, error.headers);
      case 'payload_too_large':
        return single(413, 'Payload too large', error.message, error.headers);
      case 'method_not_allowed':
        return single(405, 'Method not allowed', error.message, error.headers);
      case 'rate_limited':
        return single(429, 'Too many requests', error.message, error.headers);
      case 'route_not_found':
        return single(404, 'Resource not found', NOT_FOUND_DETAIL, error.headers);
      default: {
        const unhandled: never = code;
        throw new Error(`unmapped http problem ${String(unhandled)}`);
      }
    }
  }
  if (isDatabaseUnavailable(error)) {
    return single(503, 'Service unavailable', 'The database cannot be reached right now; nothing was changed. Please try again.', { 'Retry-After': '5' });
  }
  return single(500, 'Internal server error', 'The server failed to answer this request; it has been logged');
}
