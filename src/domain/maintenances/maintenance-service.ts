import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { changesBetween, created, recordAudit, removed } from '../audit/audit-trail.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { DomainError, invalidInput, notFound } from '../errors.js';
import { HISTORY_WINDOW_MS } from '../incidents/incident-service.js';
import { enqueueMaintenanceNotifications } from '../notifications/maintenance-notification.js';
import { pagesShowChange } from '../status-pages/status-pages.js';
import { parseInput } from '../validation.js';
import type { Maintenance } from '../model/maintenance.js';
import { FINAL_STATUSES } from '../model/maintenance.js';
import { createMaintenanceInput, updateMaintenanceInput } from './maintenance-input.js';
import { DEFAULT_UPDATE_TEXT, advanceMaintenance, moveMaintenance, maintenanceChanged } from './maintenance-lifecycle.js';
import { loadMaintenance, loadMaintenances, maintenanceById } from './maintenance-repository.js';
import type { MaintenanceRow } from './maintenance-repository.js';

/** The fields of a maintenance that its audit rows show. */
const audited = (m: Pick<Maintenance, 'title' | 'status'> & { starts_at: number; ends_at: number }) => ({
  title: m.title,
  status: m.status,
  starts_at: new Date(m.starts_at).toISOString(),
  ends_at: new Date(m.ends_at).toISOString(),
});

/** The company's maintenance, or not_found, exactly as for an id that does not exist. */
async function ownedRow(db: Kysely<Database>, company: Company, id: number): Promise<MaintenanceRow> {
  const row = await maintenanceById(db, id).executeTakeFirst();
  if (!row || Number(row.company_id) !== company.id) throw notFound('maintenance');
  return row;
}

export async function getMaintenance(ctx: DomainContext, company: Company, id: number): Promise<Maintenance> {
  return loadMaintenance(ctx.db, ctx.publicUrl, await ownedRow(ctx.db, company, id));
}

/**
 * The company's maintenances: those upcoming or in progress first, soonest
 * first; then those completed or cancelled in the last 30 days, latest first.
 */
export async function listMaintenances(ctx: DomainContext, company: Pick<Company, 'id'>): Promise<Maintenance[]> {
  const now = ctx.clock.now().getTime();
  const since = now - HISTORY_WINDOW_MS;
  const [current, past] = await Promise.all([
    ctx.db
      .selectFrom('maintenances')
      .selectAll()
      .where('company_id', '=', company.id)
      .where('status', 'in', ['scheduled', 'in_progress'])
      .orderBy('starts_at')
      .orderBy('id')
      .execute(),
    ctx.db
      .selectFrom('maintenances')
      .selectAll()
      .where('company_id', '=', company.id)
      .where('status', 'in', ['completed', 'cancelled'])
      .where('ends_at', '>=', since)
      .orderBy('starts_at', 'desc')
      .orderBy('id', 'desc')
      .execute(),
  ]);
  return loadMaintenances(ctx.db, ctx.publicUrl, [...current, ...past]);
}

/** Those of the company upcoming or in progress, soonest first: what `/statusbot maintenance` lists. */
export async function listCurrentMaintenances(ctx: DomainContext, company: Pick<Company, 'id'>): Promise<Maintenance[]> {
  return (await listMaintenances(ctx, company)).filter((m) => !FINAL_STATUSES.includes(m.status));
}

/** Schedules a maintenance of some of the company's custom services and tells their subscribers. */
export async function createMaintenance(ctx: DomainContext, company: Company, raw: unknown): Promise<Maintenance> {
  const input = parseInput(createMaintenanceInput, raw);
  return ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const owned = await trx.selectFrom('services').select('id').where('id', 'in', input.service_ids).where('company_id', '=', company.id).execute();
    // Another company's service, or none: not found, as for every resource that is not the caller's.
    if (owned.length !== input.service_ids.length) throw notFound('service');
    const row = await trx
      .insertInto('maintenances')
      .values({
        company_id: company.id,
        title: input.title,
        description: input.description,
        status: 'scheduled',
        starts_at: input.starts_at,
        ends_at: input.ends_at,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('maintenance_services')
      .values(input.service_ids.map((service_id) => ({ maintenance_id: row.id, service_id })))
      .execute();
    await trx
      .insertInto('maintenance_updates')
      .values({ maintenance_id: row.id, status: 'scheduled', description: input.description, created_at: now })
      .execute();
    await recordAudit(ctx, trx, {
      companyId: company.id,
      action: 'maintenance.create',
      targetType: 'maintenance',
      targetId: row.id,
      changes: created({ ...audited(row), service_ids: input.service_ids }),
    });
    await maintenanceChanged(ctx, trx, await loadMaintenance(trx, ctx.publicUrl, row), 'scheduled', now);
    // One whose start has come already starts now, not at the job's next run.
    await advanceMaintenance(ctx, trx, row.id, now);
    return loadMaintenance(trx, ctx.publicUrl, (await maintenanceById(trx, row.id).executeTakeFirstOrThrow()) as MaintenanceRow);
  });
}

/**
 * Changes the announcement (title, text, times), or ends the maintenance:
 * `cancelled` or `completed`, with `description` as the update's text.
 */
export async function updateMaintenance(ctx: DomainContext, company: Company, id: number, raw: unknown): Promise<Maintenance> {
  const input = parseInput(updateMaintenanceInput, raw);
  return ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const row = await ownedRow(trx, company, id);
    if (input.status !== undefined) {
      if (FINAL_STATUSES.includes(row.status)) {
        throw invalidInput(['status'], `status cannot change: the maintenance is ${row.status}`);
      }
      const event = input.status === 'cancelled' ? 'cancelled' : 'completed';
      const moved = await moveMaintenance(ctx, trx, id, [row.status], event, now, input.description);
      if (!moved) throw new DomainError('conflict', 'The maintenance changed meanwhile; read it again');
      return moved;
    }
    const startsAt = input.starts_at ?? row.starts_at;
    const endsAt = input.ends_at ?? row.ends_at;
    const retimed = startsAt !== row.starts_at || endsAt !== row.ends_at;
    if (retimed && FINAL_STATUSES.includes(row.status)) {
      throw invalidInput([input.starts_at !== undefined ? 'starts_at' : 'ends_at'], `the maintenance is ${row.status}: its times cannot change`);
    }
    if (startsAt !== row.starts_at && row.status === 'in_progress') {
      throw invalidInput(['starts_at'], 'the maintenance is in progress: its start cannot change');
    }
    if (endsAt <= startsAt) throw invalidInput(['ends_at'], 'ends_at must be after starts_at');
    const next = { title: input.title ?? row.title, description: input.description ?? row.description, starts_at: startsAt, ends_at: endsAt };
    const changes = changesBetween(
      { ...audited(row), description: row.description },
      { ...audited({ ...next, status: row.status }), description: next.description },
    );
    if (Object.keys(changes).length === 0) return loadMaintenance(trx, ctx.publicUrl, row);
    const updated = await trx
      .updateTable('maintenances')
      .set({ ...next, updated_at: now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit(ctx, trx, { companyId: company.id, action: 'maintenance.update', targetType: 'maintenance', targetId: id, changes });
    await maintenanceChanged(ctx, trx, await loadMaintenance(trx, ctx.publicUrl, updated), 'updated', now);
    await advanceMaintenance(ctx, trx, id, now);
    return loadMaintenance(trx, ctx.publicUrl, (await maintenanceById(trx, id).executeTakeFirstOrThrow()) as MaintenanceRow);
  });
}

/** Removes a maintenance for good; one not over yet is told to its subscribers as cancelled. */
export async function deleteMaintenance(ctx: DomainContext, company: Company, id: number): Promise<void> {
  await ctx.write(async (trx) => {
    const now = ctx.clock.now().getTime();
    const row = await ownedRow(trx, company, id);
    const maintenance = await loadMaintenance(trx, ctx.publicUrl, row);
    if (!FINAL_STATUSES.includes(row.status)) {
      const cancelled: Maintenance = {
        ...maintenance,
        status: 'cancelled',
        updatedAt: new Date(now),
        updates: [...maintenance.updates, { status: 'cancelled', description: DEFAULT_UPDATE_TEXT.cancelled, createdAt: new Date(now) }],
      };
      await enqueueMaintenanceNotifications(ctx, trx, cancelled, 'cancelled', now);
    }
    await trx.deleteFrom('maintenance_updates').where('maintenance_id', '=', id).execute();
    await trx.deleteFrom('maintenance_services').where('maintenance_id', '=', id).execute();
    await trx.deleteFrom('maintenances').where('id', '=', id).execute();
    await recordAudit(ctx, trx, {
      companyId: company.id,
      action: 'maintenance.delete',
      targetType: 'maintenance',
      targetId: id,
      changes: removed(audited(row)),
    });
    for (const service of maintenance.services) await trx.executeQuery(pagesShowChange(trx, service.id, now));
  });
}
