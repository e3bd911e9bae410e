import { brotliCompress, constants, gzip } from 'node:zlib';
import { promisify } from 'node:util';

/** The codings a body may be sent in; `identity` is the body as it is. */
export type ContentCoding = 'br' | 'gzip' | 'identity';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

// Ties go to the smaller body.
const PREFERENCE: readonly ContentCoding[] = ['br', 'gzip', 'identity'];
const ACCEPTED_MAX = 64;
const accepted = new Map<string, ContentCoding | null>();

/**
 * The coding to send for an `Accept-Encoding` header (RFC 9110 §12.5.3): the
 * highest q-value among br, gzip and identity, `*` standing for those not
 * named; identity is acceptable unless named or `*` with q=0. Null when none
 * is. Clients send few distinct headers, so answers are kept.
 */
export function negotiateCoding(header: string | undefined): ContentCoding | null {
  if (header === undefined || header === '') return 'identity';
  const known = accepted.get(header);
  if (known !== undefined) return known;
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';');
    const coding = name!.trim().toLowerCase();
    if (coding === '') continue;
    let weight = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(param);
      if (m) weight = Number(m[1]);
    }
    q.set(coding === 'x-gzip' ? 'gzip' : coding, weight);
  }
  const star = q.get('*');
  const weightOf = (coding: ContentCoding): number => q.get(coding) ?? (star !== undefined ? star : coding === 'identity' ? Number.MIN_VALUE : 0);
  let best: ContentCoding | null = null;
  for (const coding of PREFERENCE) {
    const weight = weightOf(coding);
    if (weight > 0 && (best === null || weight > weightOf(best))) best = coding;
  }
  if (accepted.size >= ACCEPTED_MAX) accepted.clear();
  accepted.set(header, best);
  return best;
}

/** The body in `coding`: a level that a page rendered once per change can afford, not the slowest. */
export function compress(body: Buffer, coding: Exclude<ContentCoding, 'identity'>): Promise<Buffer> {
  return coding === 'gzip'
    ? gzipAsync(body, { level: 6 })
    : brotliAsync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 6,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      });
}
