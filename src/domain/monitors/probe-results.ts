import type { Kysely } from 'kysely';
import { dialectOf } from '../../db/dialect.js';
import type { Database } from '../../db/schema.js';
import type { ChannelRef } from '../chat/chat.js';
import { channelStream } from '../chat/chat.js';
import type { DomainContext } from '../context.js';
import type { MonitorAnnouncement } from '../notifications/announcement.js';
import { enqueue, queuable } from '../notifications/enqueue.js';
import { recordAudit } from '../audit/audit-trail.js';

/**
 * Takes the probes that are due, where several processes share one database
 * (PostgreSQL replicas): each monitor's next probe moves on to `next` only
 * where it was still due, so one process probes it per interval. One process
 * on SQLite takes them all without writing, so that a healthy probe writes nothing.
 */
export async function takeDueProbes(ctx: DomainContext, due: readonly { id: number; dueAt: number; next: number }[]): Promise<Set<number>> {
  if (due.length === 0 || !dialectOf(ctx.db).sharedByProcesses) return new Set(due.map((d) => d.id));
  return ctx.write(async (trx) => {
    const taken = new Set<number>();
    for (const d of due) {
      const result = await trx
        .updateTable('custom_monitors')
        .set({ next_probe_at: d.next })
        .where('id', '=', d.id)
        .where('next_probe_at', '<=', d.dueAt)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) taken.add(d.id);
    }
    return taken;
  });
}

/** Consecutive failed probes that take a monitor down. */
export const FAILURES_TO_DOWN = 2;

export type ProbeOutcome = { ok: true } | { ok: false; reason: string };

export interface MonitorState {
  id: number;
  companyId: number;
  name: string;
  url: string;
  status: 'ok' | 'down';
  consecutiveFailures: number;
}

export type MonitorChange = 'down' | 'recovered' | null;

/**
 * Records one probe of a monitor. Two failures in a row (one for a missed or
 * failed heartbeat, which is no guess) take it down and open
 * a monitor incident naming the region and the failure; the first success
 * after that resolves it. Each transition notifies the channels that follow
 * the monitor. A success on a healthy monitor writes nothing.
 */
export async function recordProbe(
  ctx: DomainContext,
  monitor: MonitorState,
  outcome: ProbeOutcome,
  region: string,
  options: { failuresToDown?: number } = {},
): Promise<{ state: MonitorState; change: MonitorChange }> {
  const failuresToDown = options.failuresToDown ?? FAILURES_TO_DOWN;
  if (outcome.ok && monitor.status === 'ok' && monitor.consecutiveFailures === 0) return { state: monitor, change: null };
  const now = ctx.clock.now().getTime();
  return ctx.write(async (trx) => {
    const current = await trx.selectFrom('custom_monitors').select(['status', 'consecutive_failures']).where('id', '=', monitor.id).executeTakeFirst();
    if (!current) return { state: monitor, change: null };
    const failures = outcome.ok ? 0 : current.consecutive_failures + 1;
    let status = current.status;
    let change: MonitorChange = null;
    if (!outcome.ok && status === 'ok' && failures >= failuresToDown) {
      status = 'down';
      change = 'down';
      const description = `Down in ${region}: ${outcome.reason}`;
      await trx
        .insertInto('monitor_incidents')
        .values({ monitor_id: monitor.id, description, resolved: 0, created_at: now, updated_at: now, resolved_at: null })
        .execute();
      await announce(ctx, trx, monitor, { change, description, region, now });
    } else if (outcome.ok && status === 'down') {
      status = 'ok';
      change = 'recovered';
      await trx
        .updateTable('monitor_incidents')
        .set({ resolved: 1, resolved_at: now, updated_at: now })
        .where('monitor_id', '=', monitor.id)
        .where('resolved', '=', 0)
        .execute();
      await announce(ctx, trx, monitor, { change, description: `Up again in ${region}`, region, now });
    }
    if (change) {
      await recordAudit(ctx, trx, {
        companyId: monitor.companyId,
        action: change === 'down' ? 'custom_monitor.down' : 'custom_monitor.recover',
        targetType: 'custom_monitor',
        targetId: monitor.id,
        changes: { status: { from: current.status, to: status }, ...(change === 'down' && !outcome.ok ? { reason: { to: outcome.reason } } : {}) },
      });
    }
    await trx
      .updateTable('custom_monitors')
      .set({ status, consecutive_failures: failures, ...(change ? { updated_at: now } : {}) })
      .where('id', '=', monitor.id)
      .execute();
    return { state: { ...monitor, status, consecutiveFailures: failures }, change };
  });
}

async function announce(
  ctx: DomainContext,
  trx: Kysely<Database>,
  monitor: MonitorState,
  event: { change: 'down' | 'recovered'; description: string; region: string; now: number },
): Promise<void> {
  const channels = await trx
    .selectFrom('channel_subscriptions')
    .select(['platform', 'workspace_id', 'channel_id'])
    .where('kind', '=', 'monitor')
    .where('monitor_id', '=', monitor.id)
    .orderBy('id')
    .execute();
  for (const row of channels) {
    const channel: ChannelRef = { platform: row.platform, workspaceId: row.workspace_id, channelId: row.channel_id };
    if (!queuable(ctx, channelStream(channel))) continue;
    const announcement: MonitorAnnouncement = {
      kind: 'monitor',
      channel,
      monitor: { id: monitor.id, name: monitor.name, url: monitor.url },
      change: event.change,
      description: event.description,
      region: event.region,
      at: new Date(event.now).toISOString(),
    };
    await enqueue(trx, {
      companyId: monitor.companyId,
      subscriberId: null,
      stream: channelStream(channel),
      event: `monitor.${event.change}`,
      payload: announcement,
      now: event.now,
    });
  }
}
