import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * How a page arranges its services, as the config declares it: their order,
 * and the groups (headings) that gather some of them. Kept on the page's
 * service rows (`position`, `group_name`), written with the page by `apply`:
 * every process serving the page reads the same, whichever process applied
 * the config.
 */
export interface PageLayout {
  /** Service ids in the config's order. */
  order: number[];
  groups: { name: string; serviceIds: number[] }[];
}

/**
 * Places the page's services (rows already linked) as they are shown: in
 * `layout`'s order, a group where its first service is, with its services in
 * the group's own order.
 */
export async function writePageLayout(trx: Kysely<Database>, pageId: number, layout: PageLayout): Promise<void> {
  const groupOf = new Map(layout.groups.flatMap((g) => g.serviceIds.map((id) => [id, g] as const)));
  const shown: number[] = [];
  for (const id of layout.order) {
    const group = groupOf.get(id);
    if (!group) shown.push(id);
    else if (!shown.includes(id)) shown.push(...group.serviceIds);
  }
  for (const [position, serviceId] of shown.entries()) {
    await trx
      .updateTable('status_page_services')
      .set({ position, group_name: groupOf.get(serviceId)?.name ?? null })
      .where('status_page_id', '=', pageId)
      .where('service_id', '=', serviceId)
      .execute();
  }
}

/** The page's layout as written: its services in the order shown, each group's in its own order. */
export async function readPageLayout(db: Kysely<Database>, pageId: number): Promise<PageLayout> {
  const rows = await db
    .selectFrom('status_page_services')
    .select(['service_id', 'group_name'])
    .where('status_page_id', '=', pageId)
    .orderBy('position')
    .orderBy('service_id')
    .execute();
  const groups = new Map<string, number[]>();
  for (const row of rows) if (row.group_name !== null) groups.set(row.group_name, [...(groups.get(row.group_name) ?? []), row.service_id]);
  return { order: rows.map((r) => r.service_id), groups: [...groups].map(([name, serviceIds]) => ({ name, serviceIds })) };
}
