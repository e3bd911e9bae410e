import { createHash } from 'node:crypto';
import { compress } from '../content-coding.js';
import type { ContentCoding } from '../content-coding.js';
import type { PublicReply } from './public-route.js';

/** No frame, nothing from another host: the pages are HTML, one stylesheet and one script, all served here. */
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};
/** Pages may be kept briefly by browsers and proxies, then revalidated with their ETag. */
const PAGE_CACHE_CONTROL = 'public, max-age=30, must-revalidate';

/** One form of an answer's body, with its headers built once. */
export interface Variant {
  body: Buffer;
  headers: Record<string, string | number>;
  /** For a 304: the same without the body's type, coding and length. */
  unchanged: Record<string, string | number>;
}

/** An answer ready to send again. */
export interface Rendered {
  status: number;
  /** The opaque tags of every form of the body (each coding has its own); empty for answers sent fresh each time. */
  opaqueTags: ReadonlySet<string>;
  lastModifiedMs: number | null;
  identity: Variant;
  /** Compressed forms, made once at the first request that asks for each, and kept with the answer. */
  coded: Partial<Record<Exclude<ContentCoding, 'identity'>, Variant | Promise<Variant>>>;
  /** The headers every form shares (Cache-Control, Vary, Last-Modified, the route's own), for building the compressed forms'. */
  shared: Record<string, string | number>;
  opaqueTag: string | null;
}

/** When each cached answer's current body was first rendered: answers with undated parts are not older than that. */
export interface RenderDates {
  now: () => Date;
  /** At most this many answers are remembered; then all are forgotten. */
  max: number;
  first: Map<string, { opaqueTag: string; atMs: number }>;
}

export const createRenderDates = (now: () => Date, max: number): RenderDates => ({ now, max, first: new Map() });

const opaqueTagOf = (body: Buffer): string => createHash('sha256').update(body).digest('base64url').slice(0, 27);
/** Each coding's ETag differs from the body's own (RFC 9110 §8.8.3): a suffix on the same tag. */
const codedTag = (tag: string, coding: ContentCoding): string => (coding === 'identity' ? tag : `${tag}-${coding}`);

function lastModifiedOf(reply: PublicReply, opaqueTag: string, dated?: { dates: RenderDates; key: string }): number | null {
  const known = reply.lastModified && reply.lastModified.getTime() > 0 ? reply.lastModified.getTime() : null;
  if (!reply.undatedParts || dated === undefined) return known;
  const { dates, key } = dated;
  let seen = dates.first.get(key);
  if (seen?.opaqueTag !== opaqueTag) {
    if (dates.first.size >= dates.max) dates.first.clear();
    seen = { opaqueTag, atMs: dates.now().getTime() };
    dates.first.set(key, seen);
  }
  return Math.max(known ?? 0, seen.atMs);
}

/** An answer with its headers; `dated`: the cache's key, for answers rendered once per change. */
export function prepareAnswer(reply: PublicReply, cacheable: boolean, dated?: { dates: RenderDates; key: string }): Rendered {
  const body = reply.body === undefined ? Buffer.alloc(0) : typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
  const validated = cacheable && reply.status === 200;
  const opaqueTag = validated ? opaqueTagOf(body) : null;
  const lastModifiedMs = opaqueTag === null ? null : lastModifiedOf(reply, opaqueTag, dated);
  const shared: Record<string, string | number> = {
    ...SECURITY_HEADERS,
    'Cache-Control': validated ? PAGE_CACHE_CONTROL : 'no-store',
    ...(validated ? { Vary: 'Accept-Encoding' } : {}),
    ...reply.headers,
    ...(lastModifiedMs !== null ? { 'Last-Modified': new Date(lastModifiedMs).toUTCString() } : {}),
  };
  return {
    status: reply.status,
    opaqueTags: new Set(opaqueTag === null ? [] : (['identity', 'gzip', 'br'] as const).map((c) => codedTag(opaqueTag, c))),
    lastModifiedMs,
    identity: variant(shared, opaqueTag, 'identity', reply.contentType, body),
    coded: {},
    shared,
    opaqueTag,
  };
}

function variant(
  shared: Record<string, string | number>,
  opaqueTag: string | null,
  coding: ContentCoding,
  contentType: string | undefined,
  body: Buffer,
): Variant {
  const unchanged = { ...shared, ...(opaqueTag !== null ? { ETag: `"${codedTag(opaqueTag, coding)}"` } : {}) };
  const headers = {
    ...unchanged,
    ...(contentType ? { 'Content-Type': contentType } : {}),
    ...(coding !== 'identity' ? { 'Content-Encoding': coding } : {}),
    'Content-Length': body.length,
  };
  return { body, headers, unchanged };
}

/** The answer in `coding`: compressed at the first request asking for it, while others asking meanwhile wait for the same. */
export function codedVariant(entry: Rendered, coding: Exclude<ContentCoding, 'identity'>): Variant | Promise<Variant> {
  const known = entry.coded[coding];
  if (known) return known;
  const type = entry.identity.headers['Content-Type'] as string | undefined;
  const making = compress(entry.identity.body, coding).then(
    (body) => {
      const made = variant(entry.shared, entry.opaqueTag, coding, type, body);
      entry.coded[coding] = made;
      return made;
    },
    (error: unknown) => {
      // The next request tries again rather than meeting the same failure for the entry's life.
      delete entry.coded[coding];
      throw error;
    },
  );
  entry.coded[coding] = making;
  return making;
}
