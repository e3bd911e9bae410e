import { sql } from 'kysely';
import type { Db } from './database.js';
import { engineOf } from './engines.js';
import type { Database } from './schema.js';

/** Every table, parents before the tables that refer to them. */
export const TABLES_IN_ORDER = [
  'companies',
  'api_keys',
  'services',
  'maintenance_windows',
  'company_monitored_services',
  'incidents',
  'incident_updates',
  'custom_monitors',
  'monitor_incidents',
  'monitor_regions',
  'agent_reports',
  'probe_hours',
  'probe_region_hours',
  'maintenances',
  'maintenance_services',
  'maintenance_updates',
  'boards',
  'board_services',
  'status_pages',
  'status_page_services',
  'subscribers',
  'email_subscribers',
  'email_suppressions',
  'outbox',
  'meta',
  'job_leases',
  'chat_links',
  'chat_admins',
  'vendor_feeds',
  'user_reports',
  'channel_subscriptions',
  'chat_messages',
  // Minutes of rows at most; copied, so that a request replayed just after a move is still known.
  'seen_chat_requests',
  'audit_events',
  'notify_destinations',
  'notify_messages',
  'alert_groups',
  'incident_leads',
  'incident_rooms',
  'incident_notes',
] as const satisfies readonly (keyof Database)[];

type Table = (typeof TABLES_IN_ORDER)[number];
/** A table added to the schema but not to the list above fails the build here (the copy would lose it). */
const EVERY_TABLE_IS_COPIED: Exclude<keyof Database, Table> extends never ? true : never = true;
void EVERY_TABLE_IS_COPIED;

/** Tables whose `id` is generated: after a copy, the next generated id must come after the copied ones. */
const WITH_ID: readonly Table[] = [
  'audit_events',
  'companies',
  'api_keys',
  'services',
  'maintenance_windows',
  'incidents',
  'incident_updates',
  'custom_monitors',
  'monitor_incidents',
  'maintenances',
  'maintenance_updates',
  'status_pages',
  'subscribers',
  'email_subscribers',
  'outbox',
  'channel_subscriptions',
  'user_reports',
  'notify_destinations',
  'incident_notes',
];

const BATCH = 500;

/** A copy that cannot start: the target already holds data. */
export class CopyRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CopyRefusedError';
  }
}

export interface CopyReport {
  tables: { table: Table; source: number; target: number }[];
}

const count = async (db: Db, table: Table): Promise<number> =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/**
 * Copies every row of one statusbot database into another, both migrated to
 * the same version, in one transaction on the target: a copy that fails
 * leaves the target as it was. The target must hold no data (its migrations'
 * own rows in `meta` aside). Ends by comparing the row counts per table.
 */
export async function copyDatabase(from: Db, to: Db, progress: (line: string) => void): Promise<CopyReport> {
  for (const table of TABLES_IN_ORDER) {
    if (table === 'meta') continue;
    const rows = await count(to, table);
    if (rows > 0) {
      throw new CopyRefusedError(
        `the target is not empty: ${table} holds ${rows} rows; copy into a new database (createdb NAME), or empty this one: psql URL -c 'drop schema public cascade; create schema public'`,
      );
    }
  }
  const tables: CopyReport['tables'] = [];
  await to.transaction().execute(async (trx) => {
    for (const table of TABLES_IN_ORDER) {
      const total = await count(from, table);
      let done = 0;
      // Batches in a stable order.
      const order = engineOf(from).queries.stableOrder;
      for (let offset = 0; offset < total; offset += BATCH) {
        const rows = (await from.selectFrom(table).selectAll().orderBy(order).limit(BATCH).offset(offset).execute()) as Record<string, unknown>[];
        if (rows.length === 0) break;
        if (table === 'meta') {
          // The target's migrations wrote their own rows in meta (the change counter): the source's values win.
          await trx
            .insertInto('meta')
            .values(rows as { key: string; value: string }[])
            .onConflict((oc) => oc.column('key').doUpdateSet({ value: sql`excluded.value` }))
            .execute();
        } else {
          await trx
            .insertInto(table)
            .values(rows as never)
            .execute();
        }
        done += rows.length;
        progress(`${table}: ${done} of ${total}`);
      }
      if (total === 0) progress(`${table}: empty`);
    }
    for (const table of WITH_ID) await engineOf(to).queries.afterGivenIds(trx, table);
    // Compared before the commit: a copy that differs (the source changed meanwhile) leaves the target empty.
    for (const table of TABLES_IN_ORDER) tables.push({ table, source: await count(from, table), target: await count(trx as Db, table) });
    const differing = tables.filter((t) => t.source !== t.target);
    if (differing.length > 0) {
      const which = differing.map((t) => `${t.table} ${t.source} here, ${t.target} there`).join('; ');
      throw new CopyRefusedError(`the source changed while it was copied (${which}): a server writes to it`);
    }
  });
  return { tables };
}
