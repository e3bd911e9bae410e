import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** The real payloads captured from public status pages (test/fixtures/status-feeds, see its SOURCES.md). */
export const fixture = (name: string): string => readFileSync(new URL(`../fixtures/status-feeds/${name}`, import.meta.url), 'utf8');

const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
const RFC822 = /(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (?:GMT|[+-]\d{4}|[A-Z]{3})/g;

/**
 * The payload with every date moved by the same amount, so that its newest
 * date is `newest`: a captured page reads as if it were current.
 */
export function movedTo(text: string, newest: Date): string {
  const dates = [...text.matchAll(ISO), ...text.matchAll(RFC822)].map((m) => Date.parse(m[0])).filter((t) => !Number.isNaN(t));
  if (dates.length === 0) return text;
  const shift = newest.getTime() - Math.max(...dates);
  return text.replace(ISO, (d) => new Date(Date.parse(d) + shift).toISOString()).replace(RFC822, (d) => new Date(Date.parse(d) + shift).toUTCString());
}

/** What the fake answers at a path: a document (with an ETag, 304 when it still matches), or a failure. */
export type Answer =
  | { body: string; contentType?: string; delayMs?: number; etag?: boolean }
  /** `location` makes it a redirect (relative to this host). */
  | { status: number; body?: string; contentType?: string; location?: string }
  /** The connection is held open and never answered. */
  | { hang: true };

export interface FakeRequest {
  path: string;
  headers: IncomingHttpHeaders;
  status: number;
  at: number;
}

/**
 * A local status-page host owned by the tests: it serves documents at paths,
 * honours If-None-Match with 304, gzips when asked, and can be switched while a
 * test runs (a new incident, a resolution, 500, an HTML error page, a slow or
 * huge answer).
 */
export interface FakeStatusPages {
  url: string;
  requests: FakeRequest[];
  set(path: string, answer: Answer): void;
  /** Requests that reached a path (optionally only those answered with a status). */
  hits(path: string, status?: number): FakeRequest[];
  close(): Promise<void>;
}

export async function startFakeStatusPages(): Promise<FakeStatusPages> {
  const answers = new Map<string, Answer>();
  const requests: FakeRequest[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const answer = answers.get(path);
    const record = (status: number) => requests.push({ path, headers: req.headers, status, at: Date.now() });
    if (!answer) {
      record(404);
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not found</body></html>');
      return;
    }
    if ('hang' in answer) {
      record(0);
      hanging.add(res);
      return;
    }
    if ('status' in answer) {
      record(answer.status);
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/html', ...(answer.location ? { location: answer.location } : {}) });
      res.end(answer.body ?? '');
      return;
    }
    const etag = `"${createHash('sha1').update(answer.body).digest('hex')}"`;
    const send = () => {
      if (answer.etag !== false && req.headers['if-none-match'] === etag) {
        record(304);
        res.writeHead(304, { etag });
        res.end();
        return;
      }
      record(200);
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      const payload = gzip ? gzipSync(answer.body) : Buffer.from(answer.body);
      res.writeHead(200, {
        'content-type': answer.contentType ?? 'application/json',
        ...(answer.etag !== false ? { etag } : {}),
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        'content-length': payload.length,
      });
      res.end(payload);
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    set: (path, answer) => answers.set(path, answer),
    hits: (path, status) => requests.filter((r) => r.path === path && (status === undefined || r.status === status)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
