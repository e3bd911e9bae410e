import type { IncomingHttpHeaders } from 'node:http';

const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/**
 * Whether the request's validators say the client holds the answer (RFC 9110
 * §13.1.2, §13.1.3): If-None-Match by weak comparison (`W/"x"` matches `"x"`,
 * as proxies that compress send it), `*`, or any tag of a list; else
 * If-Modified-Since, which If-None-Match overrides, against the answer's
 * last change (whole seconds, as HTTP dates hold).
 */
export function clientHolds(headers: IncomingHttpHeaders, answer: { opaqueTags: ReadonlySet<string>; lastModifiedMs: number | null }): boolean {
  const noneMatch = headers['if-none-match'];
  if (noneMatch !== undefined) {
    if (noneMatch.trim() === '*') return true;
    for (const m of noneMatch.matchAll(ENTITY_TAG)) if (answer.opaqueTags.has(m[1]!)) return true;
    return false;
  }
  const since = headers['if-modified-since'];
  if (since === undefined || answer.lastModifiedMs === null) return false;
  const sinceMs = Date.parse(since);
  return !Number.isNaN(sinceMs) && Math.floor(answer.lastModifiedMs / 1000) * 1000 <= sinceMs;
}
