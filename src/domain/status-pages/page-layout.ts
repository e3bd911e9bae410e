import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * How a page arranges its services, as the config declares it: their order,
 * and the groups (headings) that gather some of them. Kept in `meta`, one row
 * per page, written with the page by `apply`: every process serving the page
 * reads the same, whichever process applied the config.
 */
export interface PageLayout {
  /** Service ids in the config's order. */
  order: number[];
  groups: { name: string; serviceIds: number[] }[];
}

const EMPTY: PageLayout = { order: [], groups: [] };

const layoutKey = (pageId: number): string => `page-layout:${pageId}`;

export async function writePageLayout(trx: Kysely<Database>, pageId: number, layout: PageLayout): Promise<void> {
  const value = JSON.stringify(layout);
  await trx
    .insertInto('meta')
    .values({ key: layoutKey(pageId), value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/** The page's layout; a page applied before layouts were kept has none (services by name, no groups) until the next apply. */
export async function readPageLayout(db: Kysely<Database>, pageId: number): Promise<PageLayout> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', layoutKey(pageId)).executeTakeFirst();
  return row ? (JSON.parse(row.value) as PageLayout) : EMPTY;
}
