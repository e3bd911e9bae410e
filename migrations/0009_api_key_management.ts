import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { isPostgres } from './engine.js';

/** The demo company's ids before this migration, and after (out of the range the README's examples use). */
const DEMO = { company: 'Demo', serviceUrlname: 'demo-api', service: { from: 1001, to: 9001 }, monitor: { from: 501, to: 9001 } };

/** Tables that refer to a service or a monitor by id. */
const SERVICE_REFS = [
  'maintenance_windows',
  'company_monitored_services',
  'incidents',
  'board_services',
  'status_page_services',
  'channel_subscriptions',
  'vendor_feeds',
  'user_reports',
] as const;
const MONITOR_REFS = ['monitor_incidents', 'probe_hours', 'channel_subscriptions'] as const;

// Migrations see no table types; rows are moved as they are.
// biome-ignore lint/suspicious/noExplicitAny: a migration runs on tables as they were then, which no type describes
type AnyDb = Kysely<any>;

export async function up(db: Kysely<unknown>): Promise<void> {
  // Keys are revoked, not deleted (who revoked what stays visible); last use is written at most once a minute per key.
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();
  await db.schema.alterTable('api_keys').addColumn('revoked_at', 'bigint').execute();
  // The first characters of a key issued by statusbot, so that a list can tell keys apart (null for keys from a config).
  await db.schema.alterTable('api_keys').addColumn('key_prefix', 'text').execute();

  const anyDb = db as AnyDb;
  await (anyDb.isTransaction ? moveDemoIds(anyDb) : anyDb.transaction().execute(moveDemoIds));
}

/**
 * The demo company seeded on a first start held service 1001 and monitor 501,
 * the ids the README's example config gives Acme, which therefore could not be
 * applied. They move to 9001, with everything that refers to them.
 */
async function moveDemoIds(db: AnyDb): Promise<void> {
  const company = await db.selectFrom('companies').select('id').where('name', '=', DEMO.company).executeTakeFirst();
  if (!company) return;
  const companyId = Number(company.id);

  const service = await db.selectFrom('services').selectAll().where('id', '=', DEMO.service.from).executeTakeFirst();
  const serviceFree = !(await db.selectFrom('services').select('id').where('id', '=', DEMO.service.to).executeTakeFirst());
  if (service && Number(service.company_id) === companyId && service.urlname === DEMO.serviceUrlname && serviceFree) {
    const { from, to } = DEMO.service;
    // urlname is unique: the old row lets go of it first.
    await db
      .updateTable('services')
      .set({ urlname: `${DEMO.serviceUrlname}-moving` })
      .where('id', '=', from)
      .execute();
    await db
      .insertInto('services')
      .values({ ...service, id: to })
      .execute();
    for (const table of SERVICE_REFS) await db.updateTable(table).set({ service_id: to }).where('service_id', '=', from).execute();
    await db
      .updateTable('channel_subscriptions')
      .set({ target_key: `service:${to}` })
      .where('target_key', '=', `service:${from}`)
      .execute();
    await replaceInJsonLists(db, 'email_subscribers', 'services', companyId, from, to);
    await db.deleteFrom('services').where('id', '=', from).execute();
    await nextIdAfterGiven(db, 'services');
  }

  const monitor = await db.selectFrom('custom_monitors').selectAll().where('id', '=', DEMO.monitor.from).executeTakeFirst();
  const monitorFree = !(await db.selectFrom('custom_monitors').select('id').where('id', '=', DEMO.monitor.to).executeTakeFirst());
  if (monitor && Number(monitor.company_id) === companyId && monitorFree) {
    const { from, to } = DEMO.monitor;
    await db
      .insertInto('custom_monitors')
      .values({ ...monitor, id: to })
      .execute();
    for (const table of MONITOR_REFS) await db.updateTable(table).set({ monitor_id: to }).where('monitor_id', '=', from).execute();
    await db
      .updateTable('channel_subscriptions')
      .set({ target_key: `monitor:${to}` })
      .where('target_key', '=', `monitor:${from}`)
      .execute();
    await replaceInJsonLists(db, 'status_pages', 'monitors', companyId, from, to);
    await db.deleteFrom('custom_monitors').where('id', '=', from).execute();
    await nextIdAfterGiven(db, 'custom_monitors');
  }
}

/** JSON lists of ids on the company's status pages (or their email subscribers) name the new id. */
async function replaceInJsonLists(
  db: AnyDb,
  table: 'status_pages' | 'email_subscribers',
  column: 'monitors' | 'services',
  companyId: number,
  from: number,
  to: number,
): Promise<void> {
  const pages = db.selectFrom('status_pages').select('id').where('company_id', '=', companyId);
  const rows = await db
    .selectFrom(table)
    .select(['id', column])
    .where(table === 'status_pages' ? 'id' : 'status_page_id', 'in', pages)
    .execute();
  for (const row of rows) {
    const list: unknown = row[column] === null ? null : JSON.parse(String(row[column]));
    if (!Array.isArray(list) || !list.includes(from)) continue;
    const moved = JSON.stringify(list.map((id) => (id === from ? to : id)));
    await db
      .updateTable(table)
      .set({ [column]: moved })
      .where('id', '=', row.id)
      .execute();
  }
}

/** PostgreSQL's identity sequence does not see given ids (SQLite's autoincrement does): it moves past them. */
async function nextIdAfterGiven(db: AnyDb, table: 'services' | 'custom_monitors'): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false) from ${sql.table(table)}`.execute(db);
}
