import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { recordAudit } from '../audit/audit-trail.js';
import type { DomainContext } from '../context.js';
import { enqueueMaintenanceNotifications } from '../notifications/maintenance-notification.js';
import { pagesShowChange } from '../status-pages/status-pages.js';
import type { Maintenance, MaintenanceEvent, MaintenanceStatus } from '../model/maintenance.js';
import { loadMaintenance, maintenanceById } from './maintenance-repository.js';

/** The update each move adds when nobody wrote one. */
export const DEFAULT_UPDATE_TEXT: Record<Exclude<MaintenanceEvent, 'updated'>, string> = {
  scheduled: 'Maintenance is scheduled.',
  started: 'Maintenance is in progress.',
  completed: 'Maintenance is complete.',
  cancelled: 'Maintenance was cancelled.',
};

const STATUS_OF: Record<Exclude<MaintenanceEvent, 'updated' | 'scheduled'>, MaintenanceStatus> = {
  started: 'in_progress',
  completed: 'completed',
  cancelled: 'cancelled',
};

/**
 * Moves a maintenance from one of `from` to the status of `event`, adding an
 * update and telling every subscriber, in the caller's transaction. The move
 * is made only where the stored status is still one of `from`: of two
 * processes making it at once, one moves it and tells of it; the other gets
 * null.
 */
export async function moveMaintenance(
  ctx: DomainContext,
  trx: Kysely<Database>,
  id: number,
  from: readonly MaintenanceStatus[],
  event: Exclude<MaintenanceEvent, 'updated' | 'scheduled'>,
  now: number,
  description?: string,
): Promise<Maintenance | null> {
  const moved = await trx
    .updateTable('maintenances')
    .set({ status: STATUS_OF[event], updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
  if (!moved) return null;
  await trx
    .insertInto('maintenance_updates')
    .values({ maintenance_id: id, status: STATUS_OF[event], description: description?.trim() || DEFAULT_UPDATE_TEXT[event], created_at: now })
    .execute();
  const maintenance = await loadMaintenance(trx, ctx.publicUrl, moved);
  await maintenanceChanged(ctx, trx, maintenance, event, now);
  await recordAudit(ctx, trx, {
    companyId: maintenance.companyId,
    action: `maintenance.${event === 'started' ? 'start' : event === 'completed' ? 'complete' : 'cancel'}`,
    targetType: 'maintenance',
    targetId: id,
    changes: { status: { from: from.length === 1 ? from[0] : undefined, to: maintenance.status } },
  });
  return maintenance;
}

/** The consequences of every change of a maintenance: its services' pages show it, its subscribers hear of it. */
export async function maintenanceChanged(
  ctx: DomainContext,
  trx: Kysely<Database>,
  maintenance: Maintenance,
  event: MaintenanceEvent,
  now: number,
): Promise<void> {
  for (const service of maintenance.services) await trx.executeQuery(pagesShowChange(trx, service.id, now));
  await enqueueMaintenanceNotifications(ctx, trx, maintenance, event, now);
}

/**
 * Starts the maintenance whose start has come and completes the one whose end
 * has, in the caller's transaction; both, one after the other, for one whose
 * whole window passed while no process ran.
 */
export async function advanceMaintenance(ctx: DomainContext, trx: Kysely<Database>, id: number, now: number): Promise<MaintenanceEvent[]> {
  const row = await maintenanceById(trx, id).executeTakeFirst();
  if (!row) return [];
  const events: MaintenanceEvent[] = [];
  if (row.status === 'scheduled' && row.starts_at <= now && (await moveMaintenance(ctx, trx, id, ['scheduled'], 'started', now))) events.push('started');
  if (
    (row.status === 'in_progress' || events.includes('started')) &&
    row.ends_at <= now &&
    (await moveMaintenance(ctx, trx, id, ['in_progress'], 'completed', now))
  ) {
    events.push('completed');
  }
  return events;
}

/**
 * The job: every maintenance whose start or end has come, on any company,
 * moved once however many processes run the job (see moveMaintenance). One
 * transaction per maintenance, so that one that fails holds up no other.
 */
export async function advanceMaintenances(ctx: DomainContext): Promise<number> {
  const now = ctx.clock.now().getTime();
  const due = await ctx.db
    .selectFrom('maintenances')
    .select('id')
    .where((eb) =>
      eb.or([eb.and([eb('status', '=', 'scheduled'), eb('starts_at', '<=', now)]), eb.and([eb('status', '=', 'in_progress'), eb('ends_at', '<=', now)])]),
    )
    .orderBy('starts_at')
    .orderBy('id')
    .execute();
  let moves = 0;
  for (const { id } of due) {
    moves += (await ctx.write((trx) => advanceMaintenance(ctx.actingAs({ actor: 'job:maintenances', requestId: null }), trx, id, now))).length;
  }
  return moves;
}
