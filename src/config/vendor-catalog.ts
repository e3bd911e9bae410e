import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { BUILT_IN_SERVICE_IDS } from '../domain/services/service-ids.js';
import { FEED_KINDS, type FeedKind } from '../domain/vendors/vendor-snapshot.js';
import { plural } from '../domain/plural.js';

/**
 * A vendor of the built-in catalog: a real third-party service whose public status page
 * statusbot can read. `id` is its service id on every install (see VENDORS.md for how a new
 * vendor's is chosen), `urlname` its stable slug, `status_page_url` the page people open, and
 * `feed` the document(s) the poller reads: for `statuspage`, `incidentio`, `instatus`,
 * `betterstack` and `slack` the page's base address (the reader appends its own paths), for
 * `statusio` the status.io API address of the page, for `salesforce` the Trust API's instances
 * preview address, for `rss`, `atom` and `gcp` the feed itself.
 */
export interface CatalogVendor {
  id: number;
  urlname: string;
  name: string;
  status_page_url: string;
  feed: { kind: FeedKind; url: string };
}

/**
 * The data stays beside the feed readers and VENDORS.md, where a vendor is added and its sources are kept;
 * the config is what reads it (a migration and the build name the file there too).
 */
const CATALOG_FILE = new URL('../ingest/vendor-catalog.json', import.meta.url);

/** Kinds whose reader is given the page's base address and appends its own paths. */
const BASE_KINDS: ReadonlySet<FeedKind> = new Set(['statuspage', 'incidentio', 'instatus', 'betterstack', 'slack']);
const STATUSIO_API = /^https:\/\/api\.status\.io\/1\.0\/status\/[0-9a-f]{24}$/;

function parseHttps(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.username === '' && url.password === '' ? url : null;
  } catch {
    return null;
  }
}

const httpsUrl = z.string().refine((v) => parseHttps(v) !== null, 'should be an absolute https URL');

/** Why a feed address cannot be what its kind's reader expects, or null when it can. */
function feedShapeProblem(kind: FeedKind, value: string): string | null {
  const url = parseHttps(value);
  if (url === null) return null; // already reported as not an https URL
  if (url.hash !== '') return 'should have no #fragment';
  if (kind === 'slack')
    return url.origin === 'https://slack-status.com' && url.pathname === '/' && url.search === '' ? null : 'should be https://slack-status.com';
  if (kind === 'statusio') return STATUSIO_API.test(value) ? null : 'should be https://api.status.io/1.0/status/{24-hex page id}';
  if (BASE_KINDS.has(kind))
    return url.pathname === '/' && url.search === '' ? null : `should be the page's base address (the ${kind} reader appends its own paths)`;
  if (kind === 'gcp') return url.pathname.endsWith('/incidents.json') ? null : 'should be the incidents.json address';
  return url.pathname === '/' ? `should be the ${kind} feed's own address, not the site` : null;
}

/** The first id a vendor may have: those below are the demo services'. */
export const FIRST_VENDOR_ID = 100_100;

const vendorId = z
  .int()
  .min(FIRST_VENDOR_ID, `should be from ${FIRST_VENDOR_ID} to ${BUILT_IN_SERVICE_IDS.max}`)
  .max(BUILT_IN_SERVICE_IDS.max, `should be from ${FIRST_VENDOR_ID} to ${BUILT_IN_SERVICE_IDS.max}`);
const slug = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'should be a slug: lowercase letters and digits, words joined by single hyphens');

/** A vendor taken out of the catalog: its id and urlname stay its own, never given to another vendor. */
const retiredEntry = z.strictObject({ id: vendorId, urlname: slug, retired: z.literal(true) });

const catalogEntry = z
  .strictObject({
    id: vendorId,
    urlname: slug,
    name: z
      .string()
      .min(1)
      .refine((v) => v === v.trim(), 'should have no leading or trailing spaces'),
    status_page_url: httpsUrl,
    feed: z.strictObject({ kind: z.enum(FEED_KINDS), url: httpsUrl }),
  })
  .superRefine((entry, ctx) => {
    const problem = feedShapeProblem(entry.feed.kind, entry.feed.url);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['feed', 'url'], message: problem });
  });

/** Two feed addresses that differ only by host case or a trailing slash are the same feed. */
export function feedAddressKey(value: string): string {
  const url = new URL(value);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}${url.search}`;
}

/** A vendor that left the catalog; its entry stays so that its id and urlname are never reused. */
export interface RetiredVendor {
  id: number;
  urlname: string;
  retired: true;
}

export interface VendorCatalog {
  vendors: CatalogVendor[];
  retired: RetiredVendor[];
}

function describe(raw: unknown, index: number): string {
  const urlname = typeof raw === 'object' && raw !== null ? (raw as { urlname?: unknown }).urlname : undefined;
  return typeof urlname === 'string' ? `entry ${index} (urlname "${urlname}")` : `entry ${index}`;
}

/**
 * The catalog file's content as vendors, or an Error naming every bad entry: each entry must be
 * well formed, and ids, urlnames, names and feed addresses must each be unique (ids and
 * urlnames of retired vendors included).
 */
export function parseVendorCatalog(data: unknown): CatalogVendor[] {
  return parseCatalogFile(data).vendors;
}

export function parseCatalogFile(data: unknown): VendorCatalog {
  if (!Array.isArray(data)) throw new Error('The vendor catalog should be a JSON array of vendors.');
  const problems: string[] = [];
  const vendors: CatalogVendor[] = [];
  const retired: RetiredVendor[] = [];
  const inOrder: { id: number; urlname: string }[] = [];
  data.forEach((raw, index) => {
    const isRetired = typeof raw === 'object' && raw !== null && 'retired' in raw;
    const parsed = (isRetired ? retiredEntry : catalogEntry).safeParse(raw);
    if (parsed.success) {
      (isRetired ? retired : vendors).push(parsed.data as CatalogVendor & RetiredVendor);
      inOrder.push(parsed.data);
    } else for (const issue of parsed.error.issues) problems.push(`${describe(raw, index)}: ${issue.path.join('.') || 'entry'} ${issue.message}`);
  });
  const ids = new Map<number, string>();
  for (const v of inOrder) {
    const same = ids.get(v.id);
    if (same !== undefined) problems.push(`urlname "${v.urlname}": id ${v.id} is already the id of "${same}"`);
    else ids.set(v.id, v.urlname);
  }
  const urlnames = new Set<string>();
  const names = new Map<string, string>();
  const feeds = new Map<string, string>();
  for (const v of retired) {
    if (urlnames.has(v.urlname)) problems.push(`urlname "${v.urlname}" appears more than once`);
    urlnames.add(v.urlname);
  }
  for (const v of vendors) {
    if (urlnames.has(v.urlname)) problems.push(`urlname "${v.urlname}" appears more than once`);
    urlnames.add(v.urlname);
    const sameName = names.get(v.name.toLowerCase());
    if (sameName !== undefined) problems.push(`urlname "${v.urlname}": name "${v.name}" is already the name of "${sameName}"`);
    else names.set(v.name.toLowerCase(), v.urlname);
    const sameFeed = feeds.get(feedAddressKey(v.feed.url));
    if (sameFeed !== undefined) problems.push(`urlname "${v.urlname}": feed ${v.feed.url} is already read for "${sameFeed}"`);
    else feeds.set(feedAddressKey(v.feed.url), v.urlname);
  }
  if (problems.length > 0) throw new Error(`The vendor catalog has ${plural(problems.length, 'bad entry', 'bad entries')}:\n- ${problems.join('\n- ')}`);
  return { vendors, retired };
}

function loadCatalogFile(): VendorCatalog {
  try {
    return parseCatalogFile(JSON.parse(readFileSync(CATALOG_FILE, 'utf8')));
  } catch (error) {
    throw new Error(`${CATALOG_FILE.pathname}: ${(error as Error).message}`, { cause: error });
  }
}

const CATALOG_FILE_CONTENT = loadCatalogFile();

/** The built-in catalog of real vendors, merged with the config's `services` (the config wins). Sources: VENDORS.md. */
export const VENDOR_CATALOG: readonly CatalogVendor[] = Object.freeze(CATALOG_FILE_CONTENT.vendors);

/** The fixed service id of every vendor the catalog has ever held, retired ones included, by urlname. */
export const VENDOR_IDS: ReadonlyMap<string, number> = new Map(
  [...CATALOG_FILE_CONTENT.vendors, ...CATALOG_FILE_CONTENT.retired].map((v) => [v.urlname, v.id]),
);
