import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { isPostgres } from './engine.js';

/**
 * Each vendor's fixed id, read from the catalog file (retired entries included):
 * its data, not the code that loads it, which may change after this migration.
 * A vendor's id there never changes (src/ingest/VENDORS.md).
 */
const VENDOR_IDS: ReadonlyMap<string, number> = new Map(
  (JSON.parse(readFileSync(new URL('../src/ingest/vendor-catalog.json', import.meta.url), 'utf8')) as { id: number; urlname: string }[]).map((v) => [
    v.urlname,
    v.id,
  ]),
);

/** The demo services' fixed ids, as this migration gives them. */
const DEMO_IDS: Readonly<Record<string, number>> = {
  'demo-service': 100_001,
  'demo-service-ok': 100_002,
  'demo-service-minor': 100_003,
  'demo-service-major': 100_004,
};
/** Catalog services without a fixed id (or whose fixed id a custom service holds) go to the next free id from here. */
const OTHER_CATALOG_IDS_FROM = 900_000;

/** Tables that refer to a service by id, in a `service_id` column. */
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

// biome-ignore lint/suspicious/noExplicitAny: a migration runs on tables as they were then, which no type describes
type AnyDb = Kysely<any>;

interface Move {
  from: number;
  to: number;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const anyDb = db as AnyDb;
  await (anyDb.isTransaction ? moveCatalogServices(anyDb) : anyDb.transaction().execute(moveCatalogServices));
}

/**
 * Catalog services were numbered from the same sequence as the ids configs give custom
 * services, so they took ids a company could choose, and other ids on each install. Each
 * moves, with everything that refers to it, to its fixed id (demo services, vendors of the
 * built-in catalog) or, for a service the config added to the catalog, to the next free id
 * from 900,000. Custom services never move: API users keep their ids. A built-in service whose
 * fixed id a custom service holds takes the next free id from 900,000 instead.
 */
async function moveCatalogServices(db: AnyDb): Promise<void> {
  const moves = await planMoves(db);
  if (moves.length === 0) return;
  // Through negative ids, which no service has: no target is held by a service still to move.
  await moveIds(
    db,
    moves.map((m) => ({ from: m.from, to: -m.from })),
  );
  await moveIds(
    db,
    moves.map((m) => ({ from: -m.from, to: m.to })),
  );
  const to = new Map(moves.map((m) => [m.from, m.to]));
  await rewriteEmailSubscriptions(db, to);
  await rewritePendingOutbox(db, to);
  await rewriteAuditTargets(db, to);
  if (isPostgres(db)) {
    await sql`select setval(pg_get_serial_sequence('services', 'id'), coalesce(max(id), 0) + 1, false) from services`.execute(db);
  }
}

async function planMoves(db: AnyDb): Promise<Move[]> {
  const rows = (await db.selectFrom('services').select(['id', 'urlname', 'company_id']).orderBy('id').execute()).map((r) => ({
    id: Number(r.id),
    urlname: String(r.urlname),
    custom: r.company_id !== null,
  }));
  const taken = new Set(rows.filter((r) => r.custom).map((r) => r.id));
  const moves: Move[] = [];
  const elsewhere: number[] = [];
  for (const r of rows) {
    if (r.custom) continue;
    const fixed = DEMO_IDS[r.urlname] ?? VENDOR_IDS.get(r.urlname);
    if (fixed !== undefined && !taken.has(fixed)) {
      taken.add(fixed);
      if (r.id !== fixed) moves.push({ from: r.id, to: fixed });
    } else if (r.id >= OTHER_CATALOG_IDS_FROM) taken.add(r.id);
    else elsewhere.push(r.id);
  }
  let next = OTHER_CATALOG_IDS_FROM;
  for (const id of elsewhere) {
    while (taken.has(next)) next++;
    moves.push({ from: id, to: next });
    taken.add(next);
  }
  return moves;
}

/**
 * Moves services to new ids, none of which a service holds: a copy of each row at its new id
 * (under a stand-in urlname, the urlname being unique), every reference moved over, the old
 * row deleted, the urlname given back.
 */
async function moveIds(db: AnyDb, moves: Move[]): Promise<void> {
  await db.schema
    .createTable('service_id_moves')
    .addColumn('old_id', 'bigint', (c) => c.primaryKey())
    .addColumn('new_id', 'bigint', (c) => c.notNull().unique())
    .addColumn('urlname', 'text')
    .execute();
  for (let i = 0; i < moves.length; i += 500) {
    await db
      .insertInto('service_id_moves')
      .values(moves.slice(i, i + 500).map((m) => ({ old_id: m.from, new_id: m.to })))
      .execute();
  }
  const newId = sql`(select m.new_id from service_id_moves m where m.old_id = service_id)`;
  const moving = sql`(select old_id from service_id_moves)`;

  await sql`update service_id_moves set urlname = (select s.urlname from services s where s.id = service_id_moves.old_id)`.execute(db);
  await sql`insert into services (id, urlname, name, status_page_url, company_id, demo, feed_kind, feed_url, poll_always, created_at)
    select m.new_id, 'moving:' || cast(m.new_id as text), s.name, s.status_page_url, s.company_id, s.demo, s.feed_kind, s.feed_url, s.poll_always, s.created_at
    from services s join service_id_moves m on m.old_id = s.id`.execute(db);
  // A vendor's incidents are keyed `vendor:{service id}:{the vendor's incident id}`.
  await sql`update incidents
    set external_key = (select 'vendor:' || cast(m.new_id as text) || substr(incidents.external_key, length(cast(m.old_id as text)) + 8)
      from service_id_moves m where m.old_id = incidents.service_id)
    where service_id in ${moving} and external_key like ('vendor:' || cast(service_id as text) || ':%')`.execute(db);
  for (const table of SERVICE_REFS) {
    await sql`update ${sql.table(table)} set service_id = ${newId} where service_id in ${moving}`.execute(db);
  }
  await sql`update channel_subscriptions set target_key = 'service:' || cast(service_id as text)
    where kind = 'service' and service_id in (select new_id from service_id_moves)`.execute(db);
  await sql`delete from services where id in ${moving}`.execute(db);
  await sql`update services set urlname = (select m.urlname from service_id_moves m where m.new_id = services.id)
    where id in (select new_id from service_id_moves)`.execute(db);
  await db.schema.dropTable('service_id_moves').execute();
}

/** Email subscribers name the services they follow in a JSON list of ids. */
async function rewriteEmailSubscriptions(db: AnyDb, to: ReadonlyMap<number, number>): Promise<void> {
  const rows = await db.selectFrom('email_subscribers').select(['id', 'services']).where('services', 'is not', null).execute();
  for (const row of rows) {
    const list: unknown = JSON.parse(String(row.services));
    if (!Array.isArray(list) || !list.some((id) => to.has(id))) continue;
    await db
      .updateTable('email_subscribers')
      .set({ services: JSON.stringify(list.map((id) => to.get(id) ?? id)) })
      .where('id', '=', row.id)
      .execute();
  }
}

/**
 * Notifications not yet delivered carry the service's id (`service.id` of a status change or a
 * subscriber's notification, `incident.service.id` of a chat announcement): they say the new one.
 */
async function rewritePendingOutbox(db: AnyDb, to: ReadonlyMap<number, number>): Promise<void> {
  const rows = await db.selectFrom('outbox').select(['id', 'payload']).where('state', '=', 'pending').execute();
  for (const row of rows) {
    const payload = JSON.parse(String(row.payload)) as { service?: { id?: unknown }; incident?: { service?: { id?: unknown } } };
    let changed = false;
    for (const service of [payload.service, payload.incident?.service]) {
      const moved = typeof service?.id === 'number' ? to.get(service.id) : undefined;
      if (service && moved !== undefined) {
        service.id = moved;
        changed = true;
      }
    }
    if (changed) {
      await db
        .updateTable('outbox')
        .set({ payload: JSON.stringify(payload) })
        .where('id', '=', row.id)
        .execute();
    }
  }
}

/** The audit trail names a channel's subscription by its target, `{channel}/service:{id}`: it keeps naming the same service. */
async function rewriteAuditTargets(db: AnyDb, to: ReadonlyMap<number, number>): Promise<void> {
  const rows = await db
    .selectFrom('audit_events')
    .select(['id', 'target_id'])
    .where('target_type', '=', 'channel_subscription')
    .where('target_id', 'like', '%/service:%')
    .execute();
  for (const row of rows) {
    const match = /^(.*\/service:)(\d+)$/.exec(String(row.target_id));
    const moved = match ? to.get(Number(match[2])) : undefined;
    if (!match || moved === undefined) continue;
    await db
      .updateTable('audit_events')
      .set({ target_id: `${match[1]}${moved}` })
      .where('id', '=', row.id)
      .execute();
  }
}
