import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { readEpoch } from '../read-epoch.js';

export interface PublicPage {
  id: number;
  companyId: number;
  name: string;
  slug: string;
  /** Its public address (configured, or {public_url}/status/{slug}). */
  url: string;
  /** Catalog service urlnames shown beside the company's own. */
  thirdParty: string[];
  /** Custom monitor ids shown. */
  monitors: number[];
  /** When the page was made: the date of a feed with nothing in it yet. */
  createdAt: Date;
}

// Keyed by the processState: every request's context (see DomainContext.actingAs) shares it.
const hostsOf = new WeakMap<DomainContext['processState'], { epoch: string; map: Map<string, string> }>();

/** Own hosts of pages (from their configured url) and the slug each serves, read once per change. */
export async function pageHosts(ctx: DomainContext): Promise<Map<string, string>> {
  const epoch = readEpoch(ctx);
  const known = hostsOf.get(ctx.processState);
  if (known?.epoch === epoch) return known.map;
  const rows = await ctx.db.selectFrom('status_pages').select(['host', 'slug']).where('host', 'is not', null).execute();
  const map = new Map(rows.map((r) => [r.host!, r.slug]));
  hostsOf.set(ctx.processState, { epoch, map });
  return map;
}

/** The status page served at /status/{slug}; not_found when none is. */
export async function findPage(ctx: DomainContext, slug: string): Promise<PublicPage> {
  const row = await ctx.db
    .selectFrom('status_pages')
    .select(['id', 'company_id', 'name', 'slug', 'url', 'third_party', 'monitors', 'created_at'])
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!row) throw notFound('status page');
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    slug: row.slug,
    url: row.url,
    thirdParty: JSON.parse(row.third_party) as string[],
    monitors: JSON.parse(row.monitors) as number[],
    createdAt: new Date(row.created_at),
  };
}

/** A status page as this server's home lists it: `url` only for one served on a host of its own. */
export interface ListedPage {
  name: string;
  slug: string;
  ownUrl: string | null;
}

/** Every status page of this server, by name. */
export async function listPages(ctx: DomainContext): Promise<ListedPage[]> {
  const rows = await ctx.db.selectFrom('status_pages').select(['name', 'slug', 'url', 'host']).orderBy('name').orderBy('slug').execute();
  return rows.map((r) => ({ name: r.name, slug: r.slug, ownUrl: r.host === null ? null : r.url }));
}
