import { z } from 'zod';
import { FeedFormatError } from './vendor-snapshot.js';

/**
 * Reads one JSON document of a feed against the schema of its frame (the
 * object around its lists). `document` names it in the error (`summary.json`),
 * so that the message recorded on the feed says which of the documents is
 * wrong and where. The items of its lists are read apart, with readItems.
 */
export function readJson<S extends z.ZodType>(body: string, document: string, schema: S): z.output<S> {
  const text = body.replace(/^\uFEFF/, '').trim();
  if (text === '') throw new FeedFormatError(`${document}: empty body`);
  if (text.startsWith('<')) {
    const kind = /^<(\?xml|rss|feed)\b/i.test(text) ? 'an XML document' : 'an HTML page';
    throw new FeedFormatError(`${document}: ${kind} instead of JSON`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new FeedFormatError(`${document}: malformed JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new FeedFormatError(`${document}: unexpected content: ${describeIssues(result.error.issues, value)}`);
  return result.data;
}

/**
 * Reads a list of a document item by item. An item its schema refuses is left
 * out and said in `skipped`, one line naming the document, the item and why
 * (`incidents.json: incidents[3] (id "abc"): resolved_at should be a date`):
 * one bad incident must not cost the others, whose resolutions would never be
 * applied. `read` maps each item read, given its own `where` for its inner lists.
 */
export function readItems<S extends z.ZodType>(list: readonly unknown[], where: string, schema: S, skipped: string[]): z.output<S>[];
export function readItems<S extends z.ZodType, T>(
  list: readonly unknown[],
  where: string,
  schema: S,
  skipped: string[],
  read: (item: z.output<S>, where: string) => T,
): T[];
export function readItems<S extends z.ZodType, T>(
  list: readonly unknown[],
  where: string,
  schema: S,
  skipped: string[],
  read?: (item: z.output<S>, where: string) => T,
): (T | z.output<S>)[] {
  const items: (T | z.output<S>)[] = [];
  list.forEach((raw, index) => {
    const itemWhere = `${where}[${index}]${label(raw)}`;
    const result = schema.safeParse(raw);
    if (result.success) items.push(read ? read(result.data, itemWhere) : result.data);
    else skipped.push(`${itemWhere}: ${describeIssues(result.error.issues, raw, 'the item')}`);
  });
  return items;
}

/** How a skipped line names an item besides its place: its id, else its name. */
function label(item: unknown): string {
  if (item === null || typeof item !== 'object') return '';
  const record = item as Record<string, unknown>;
  const { id } = record;
  if ((typeof id === 'string' && id.trim() !== '') || typeof id === 'number') return ` (id ${preview(String(id))})`;
  const name = [record.name, record.external_desc].find((value) => typeof value === 'string' && value.trim() !== '');
  return name === undefined ? '' : ` (name ${preview(name)})`;
}

/**
 * A field that is optional by nature (an impact word, a link, a text): null,
 * missing or of an unexpected type, it reads as absent rather than costing
 * its item. Dates are not read so: a date that says something else than a
 * date cannot be trusted to be absent.
 */
export const lenient = <T extends z.ZodType>(schema: T) => schema.nullish().catch(undefined);

/** A list inside an item, read item by item later; anything but a list reads as none. */
export const innerList = z
  .array(z.unknown())
  .nullish()
  .catch(undefined)
  .transform((list) => list ?? []);

/** A list a document is made of, read item by item later: missing or null is empty, anything but a list is a format error of the document. */
export const documentList = z
  .array(z.unknown())
  .nullish()
  .transform((list) => list ?? []);

function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown, whole = 'the document'): string {
  const described = issues.slice(0, 3).map((issue) => {
    const where = formatPath(issue.path);
    return `${where === '' ? whole : where} ${describeIssue(issue, input)}`;
  });
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return `${described.join('; ')}${more}`;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return valueAt(input, issue.path) === undefined ? 'is missing' : `should be ${article(issue.expected)}`;
    case 'invalid_value':
      return `should be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${preview(valueAt(input, issue.path))}`;
    default:
      return issue.message;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * The first of each id. The domain upserts a snapshot's incidents and
 * maintenances by id, so a feed that lists one twice must not say it twice.
 */
export function firstById<T extends { id: string }>(list: readonly T[]): T[] {
  const seen = new Set<string>();
  return list.filter((entry) => !seen.has(entry.id) && seen.add(entry.id));
}

/** A date string of a feed, as a Date; an unreadable one makes its item unreadable. */
export const feedDate = z.string().transform((value, ctx) => {
  const date = parseFeedDate(value);
  if (date === null) {
    ctx.addIssue({ code: 'custom', message: `should be a date, got ${preview(value)}`, input: value });
    return z.NEVER;
  }
  return date;
});

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

// RFC 822 names its zones; these are its own plus the few unambiguous ones feeds use.
const ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  CET: 60,
  CEST: 120,
  EET: 120,
  EEST: 180,
  JST: 540,
  AEST: 600,
  AEDT: 660,
};

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
// `Mon, 17 Aug 2026 21:01:19 PDT` (RSS) and `17 Aug 26 21:01 +0000`.
const RFC822_DATE = /^(?:[a-z]{3,9},?\s+)?(\d{1,2})\s+([a-z]{3})[a-z]*\.?\s+(\d{2}|\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([+-]\d{4}|[a-z]{1,5})?$/i;
// JavaScript's Date#toString, which Instatus writes: `Sat Jun 11 2022 18:55:50 GMT+0000 (Coordinated Universal Time)`.
const JS_DATE = /^[a-z]{3}\s+([a-z]{3})\s+(\d{1,2})\s+(\d{4})\s+(\d{2}):(\d{2}):(\d{2})\s+GMT([+-]\d{4})(?:\s+\(.*\))?$/i;

/**
 * Reads the date formats status feeds use (ISO 8601, RFC 822, JavaScript's
 * Date#toString); null for anything else. Deliberately not `Date.parse`, which
 * accepts almost any string and reads zone-less times in the server's zone.
 */
export function parseFeedDate(value: string): Date | null {
  const text = value.trim();
  let m = ISO_DATE.exec(text);
  if (m) {
    const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
    return build(+m[1]!, +m[2]!, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), fraction, offsetMinutes(m[8] ?? 'Z'));
  }
  m = RFC822_DATE.exec(text);
  if (m) {
    const year = m[3]!.length === 2 ? 2000 + Number(m[3]) - (Number(m[3]) >= 50 ? 100 : 0) : Number(m[3]);
    return build(year, MONTHS.indexOf(m[2]!.toLowerCase()) + 1, +m[1]!, +m[4]!, +m[5]!, +(m[6] ?? 0), 0, offsetMinutes(m[7] ?? 'GMT'));
  }
  m = JS_DATE.exec(text);
  if (m) return build(+m[3]!, MONTHS.indexOf(m[1]!.toLowerCase()) + 1, +m[2]!, +m[4]!, +m[5]!, +m[6]!, 0, offsetMinutes(m[7]!));
  return null;
}

function offsetMinutes(zone: string): number | null {
  const numeric = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3] ?? 0);
    return numeric[1] === '-' ? -minutes : minutes;
  }
  return ZONES[zone.toUpperCase()] ?? null;
}

function build(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number, offset: number | null): Date | null {
  if (offset === null || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return null;
  const utc = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), ms);
  // Date.UTC rolls 31 February over into March; a feed that says so is wrong, not early March.
  if (new Date(utc).getUTCDate() !== day) return null;
  return new Date(utc - offset * 60_000);
}

const INLINE_TAGS = new Set(['a', 'abbr', 'b', 'code', 'em', 'font', 'i', 'small', 'span', 'strong', 'sub', 'sup', 'u', 'var']);

/** An HTML fragment as one line of text: tags dropped, entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  // `[^<>]*`, not `[^>]*`: a tag never spans a `<`, and a body full of unclosed `<a` stays linear.
  const withoutTags = withoutHiddenParts(html)
    // Inline tags join their text (`multi<b>ple</b>`); every other tag separates words.
    .replace(/<\/?([a-z][a-z0-9]*)\b[^<>]*>/gi, (_tag, name: string) => (INLINE_TAGS.has(name.toLowerCase()) ? '' : ' '))
    .replace(/<[!?/][^<>]*>/g, ' ');
  return collapse(decodeEntities(withoutTags));
}

const HIDDEN_START = /<!--|<script\b|<style\b/g;
const HIDDEN_END: Record<string, string> = { '<!--': '-->', '<script': '</script', '<style': '</style' };

/**
 * Comments, scripts and styles dropped in one pass; a lazy regex would rescan
 * to the end for every unclosed `<!--`. Unclosed, they run to the end, as in a browser.
 */
function withoutHiddenParts(html: string): string {
  const lower = html.toLowerCase();
  let out = '';
  let at = 0;
  for (;;) {
    HIDDEN_START.lastIndex = at;
    const start = HIDDEN_START.exec(lower);
    if (start === null) break;
    out += `${html.slice(at, start.index)} `;
    const close = HIDDEN_END[start[0]]!;
    const end = lower.indexOf(close, start.index + start[0].length);
    const after = end < 0 ? -1 : close === '-->' ? end + 3 : lower.indexOf('>', end) + 1;
    if (after <= 0) return out;
    at = after;
  }
  return out + html.slice(at);
}

export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  times: '×',
  euro: '€',
  pound: '£',
  shy: '',
};

/** Decodes character references; an unknown or impossible one is left as written. */
export function decodeEntities(text: string, named: Record<string, string> = NAMED_ENTITIES): string {
  return text.replace(/&(#x[0-9a-f]{1,8}|#[0-9]{1,10}|[a-z][a-z0-9]{1,31});/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return Object.hasOwn(named, ref) ? named[ref]! : whole;
  });
}
