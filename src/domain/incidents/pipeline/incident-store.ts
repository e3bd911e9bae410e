import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import { paddedIds } from '../../../db/dialect.js';
import { prepared } from '../../../db/prepared.js';
import type { Database, IncidentsTable } from '../../../db/schema.js';
import type { DomainContext } from '../../context.js';
import { toIncident, updatesOfIncident } from '../incident-repository.js';
import type { StoredUpdate } from '../incident-repository.js';
import { incidentRowOf } from './change-scope.js';
import type { ChangeScope } from './change-scope.js';
import { eventOf } from './change-rules.js';
import type { IncidentDraft, IncidentRemoval, MonitorIncidentChange, ProposedChange, StoredChange, StoredMonitorIncident } from './incident-change.js';

/*
 * The one writer of the incident tables: incidents, their timelines
 * (update-writes.ts) and monitor incidents. Nothing else in the product
 * inserts, changes or deletes their rows (test/domain/incident-writer.unit.test.ts).
 */

type DraftParams = keyof IncidentDraft | 'service';
const draftValues = (p: Record<DraftParams, never>) => ({
  service_id: p.service,
  title: p.title,
  status: p.status,
  description: p.description,
  resolved: p.resolved,
  url: p.url,
  user_generated: p.user_generated,
  severity_from_provider: p.severity_from_provider,
  components: p.components,
  external_key: p.external_key,
  created_at: p.created_at,
  updated_at: p.updated_at,
  resolved_at: p.resolved_at,
});
const insertNew = prepared<DraftParams, Selectable<IncidentsTable>>((db, p) => db.insertInto('incidents').values(draftValues(p)).returningAll());
const insertWithId = prepared<DraftParams | 'id', never>((db, p) => db.insertInto('incidents').values({ id: p.id, ...draftValues(p) }));
/** An incident with an external key is written once, also by processes writing it at the same time. */
const insertKeyed = prepared<DraftParams, Selectable<IncidentsTable>>((db, p) =>
  db
    .insertInto('incidents')
    .values(draftValues(p))
    .onConflict((oc) => oc.column('external_key').where('external_key', 'is not', null).doNothing())
    .returningAll(),
);

const insertIncident = async (db: Kysely<Database>, serviceId: number, draft: IncidentDraft) =>
  (await (draft.external_key === null ? insertNew : insertKeyed)(db, { ...draft, service: serviceId }))[0];

/** The stored fields of a draft, without its service (which a change never moves). */
const changedValues = (p: Record<DraftParams, never>) => {
  const { service_id: _, ...values } = draftValues(p);
  return values;
};

const updateIncident = prepared<keyof IncidentDraft | 'id', Selectable<IncidentsTable>>((db, p) =>
  db
    .updateTable('incidents')
    .set(changedValues(p as never))
    .where('id', '=', p.id)
    .returningAll(),
);

const updateIncidentRow = prepared<keyof IncidentDraft | 'id', never>((db, p) =>
  db
    .updateTable('incidents')
    .set(changedValues(p as never))
    .where('id', '=', p.id),
);

const deleteIncident = prepared<'id', never>((db, p) => db.deleteFrom('incidents').where('id', '=', p.id));
const clearTimeline = prepared<'id', never>((db, p) => db.deleteFrom('incident_updates').where('incident_id', '=', p.id));

/**
 * Stores one change, and reads the incident as it now reads: undefined when a
 * new one's external key was taken (another process wrote it). Its writes
 * that nothing reads back are added to `later`.
 */
export async function storeChange(
  ctx: DomainContext,
  trx: Kysely<Database>,
  scope: ChangeScope,
  change: ProposedChange,
  later: CompiledQuery[],
  now: number,
): Promise<StoredChange | undefined> {
  const quiet = change.quiet === true || change.seeded === true;
  const stored = await store(trx, scope, change, later);
  if (stored === undefined) return undefined;
  const id = stored?.id ?? change.before!.row.id;
  const updates = quiet ? [] : await timelineOf(trx, id, change);
  const incident = toIncident(ctx, incidentRowOf(stored ?? change.before!.row, scope), updates, now);
  return { event: eventOf(change), incident, quiet, posted: change.posted, before: change.before?.row ?? null, after: stored };
}

/**
 * Stores one change: the incident as it now reads, read back from its write
 * (null once deleted; undefined when a new one's key was taken). Its
 * writes that nothing reads back are added to `later`.
 */
async function store(
  trx: Kysely<Database>,
  scope: ChangeScope,
  change: ProposedChange,
  later: CompiledQuery[],
): Promise<Selectable<IncidentsTable> | null | undefined> {
  if (!change.after) {
    later.push(deleteIncident.bind(trx, { id: change.before!.row.id }));
    return null;
  }
  const { after } = change;
  let row: Selectable<IncidentsTable> | undefined;
  if (scope.single && (change.before || scope.reservedId !== null)) {
    // One change of one incident, whose id is known: its row is the draft as written (its text as it reads back),
    // and its write goes out with the rest of the change.
    const id = change.before ? change.before.row.id : scope.reservedId!;
    row = { ...after, id, service_id: scope.service.id };
    later.push(change.before ? updateIncidentRow.bind(trx, { ...after, id }) : insertWithId.bind(trx, { ...after, service: scope.service.id, id }));
  } else {
    row = change.before ? (await updateIncident(trx, { ...after, id: change.before.row.id }))[0] : await insertIncident(trx, scope.service.id, after);
  }
  if (!row) return undefined;
  // Its updates are written once the service's move is known (see applyIncidentChanges).
  if (change.rewriteTimeline) later.push(clearTimeline.bind(trx, { id: row.id }));
  return row;
}

/** The incident's timeline after the change, its new updates not yet written: from what the source read, or read. */
async function timelineOf(trx: Kysely<Database>, id: number, change: ProposedChange): Promise<StoredUpdate[]> {
  if (!change.after) return change.before!.updates ?? [];
  if (change.rewriteTimeline || !change.before) return change.posted;
  return [...(change.before.updates ?? (await updatesOfIncident(trx, id))), ...change.posted];
}

/**
 * Stores a monitor's change: opens its incident when it went down, resolves
 * every open one when it recovered; returns the incidents it opened or resolved.
 */
export async function storeMonitorChange(trx: Kysely<Database>, change: MonitorIncidentChange, now: number): Promise<StoredMonitorIncident[]> {
  const monitorId = change.monitor.id;
  if (change.event === 'down') {
    const opened = await trx
      .insertInto('monitor_incidents')
      .values({ monitor_id: monitorId, description: change.note, resolved: 0, created_at: now, updated_at: now, resolved_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return [{ id: opened.id, description: change.note, created_at: now }];
  }
  return trx
    .updateTable('monitor_incidents')
    .set({ resolved: 1, resolved_at: now, updated_at: now })
    .where('monitor_id', '=', monitorId)
    .where('resolved', '=', 0)
    .returning(['id', 'description', 'created_at'])
    .execute();
}

/** Deletes the incidents a removal names, their timelines with them (by foreign key). */
export async function deleteRemoved(trx: Kysely<Database>, removal: IncidentRemoval): Promise<void> {
  if (removal.cause === 'expired') {
    const ids = paddedIds([...removal.ids]);
    if (removal.kind === 'incidents') await trx.deleteFrom('incidents').where('id', 'in', ids).execute();
    else await trx.deleteFrom('monitor_incidents').where('id', 'in', ids).execute();
    return;
  }
  if ('services' in removal) {
    if (removal.services.length > 0)
      await trx
        .deleteFrom('incidents')
        .where('service_id', 'in', [...removal.services])
        .execute();
    return;
  }
  const { company } = removal;
  await trx
    .deleteFrom('incidents')
    .where('service_id', 'in', (eb) => eb.selectFrom('services').select('services.id').where('services.company_id', '=', company))
    .execute();
  await trx
    .deleteFrom('monitor_incidents')
    .where('monitor_id', 'in', (eb) => eb.selectFrom('custom_monitors').select('custom_monitors.id').where('custom_monitors.company_id', '=', company))
    .execute();
}
