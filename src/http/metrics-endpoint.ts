import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { DomainError } from '../domain/errors.js';

export const METRICS_PATH = '/metrics';

export interface MetricsEndpointOptions {
  registry: Registry;
  /** When set, a scrape must send `Authorization: Bearer <token>`; else /metrics is open. */
  token?: string;
}

/** Answers a GET or HEAD of /metrics; throws DomainError('unauthorized') for a missing or wrong token. */
export type MetricsEndpoint = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

// Compared as digests: equal lengths for timingSafeEqual, and no timing hint of the token's length.
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

export function createMetricsEndpoint(options: MetricsEndpointOptions): MetricsEndpoint {
  const expected = options.token === undefined ? null : digest(options.token);
  return async (req, res) => {
    if (expected) {
      const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
      if (!m || !timingSafeEqual(digest(m[1]!), expected)) {
        throw new DomainError('unauthorized', 'The metrics need "Authorization: Bearer <metrics.token>"');
      }
    }
    const body = await options.registry.metrics();
    res.writeHead(200, {
      'Content-Type': options.registry.contentType,
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
    });
    res.end(body);
  };
}
