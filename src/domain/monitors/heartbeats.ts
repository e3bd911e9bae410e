import { randomBytes } from 'node:crypto';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { recordProbe } from './probe-results.js';
import type { ProbeOutcome } from './probe-results.js';
import { clipText } from '../clip-text.js';

/** The secret part of a heartbeat's push address: unguessable, URL-safe. */
export const newHeartbeatToken = (): string => randomBytes(24).toString('base64url');

/** Where a heartbeat monitor's job reports in. */
export const pushUrlOf = (publicUrl: string, token: string): string => `${publicUrl}/api/v2/heartbeats/${encodeURIComponent(token)}`;

/** A report longer than this is cut: it lands in an incident's description and in chat. */
const MAX_MESSAGE_CHARS = 200;

export interface HeartbeatReport {
  /** `?status=down`: the job ran and failed. */
  down: boolean;
  message: string | null;
}

const monitorColumns = ['id', 'company_id', 'name', 'url', 'status', 'consecutive_failures', 'interval_seconds', 'grace_seconds', 'last_heartbeat_at'] as const;

/**
 * A ping of a heartbeat monitor: it counts from now, and brings the monitor
 * up again if it was down; a ping reporting a failure takes it down at once.
 */
export async function recordHeartbeat(ctx: DomainContext, token: string, report: HeartbeatReport, region: string): Promise<void> {
  const row = await ctx.db
    .selectFrom('custom_monitors')
    .select(monitorColumns)
    .where('heartbeat_token', '=', token)
    .where('probe_type', '=', 'heartbeat')
    .executeTakeFirst();
  if (!row) throw notFound('heartbeat');
  const now = ctx.clock.now().getTime();
  await ctx.write((trx) => trx.updateTable('custom_monitors').set({ last_heartbeat_at: now }).where('id', '=', row.id).execute());
  const message = clipText(report.message?.trim() ?? '', MAX_MESSAGE_CHARS) || null;
  const outcome: ProbeOutcome = report.down ? { ok: false, reason: message ? `reported down: ${message}` : 'reported down' } : { ok: true };
  await recordProbe(ctx, stateOf(row), outcome, region, { failuresToDown: 1 });
}

/** When a heartbeat monitor is overdue (epoch ms): its last ping, plus its interval and grace. */
export const heartbeatDeadline = (m: {
  interval_seconds: number;
  grace_seconds: number | null;
  last_heartbeat_at: number | null;
  created_at: number;
}): number => (m.last_heartbeat_at ?? m.created_at) + (m.interval_seconds + (m.grace_seconds ?? 0)) * 1000;

/**
 * Takes a heartbeat monitor down when no ping came by its deadline, saying
 * since when. Returns the deadline read from the database (a ping may have
 * moved it on since the caller looked).
 */
export async function checkHeartbeat(ctx: DomainContext, monitorId: number, now: number, region: string): Promise<number | null> {
  const row = await ctx.db
    .selectFrom('custom_monitors')
    .select([...monitorColumns, 'created_at'])
    .where('id', '=', monitorId)
    .where('probe_type', '=', 'heartbeat')
    .executeTakeFirst();
  if (!row) return null;
  const deadline = heartbeatDeadline(row);
  if (now < deadline || row.status === 'down') return deadline;
  const since = new Date(row.last_heartbeat_at ?? row.created_at).toISOString();
  await recordProbe(ctx, stateOf(row), { ok: false, reason: `no heartbeat since ${since}` }, region, { failuresToDown: 1 });
  return deadline;
}

const stateOf = (row: { id: number; company_id: number; name: string; url: string; status: 'ok' | 'down'; consecutive_failures: number }) => ({
  id: row.id,
  companyId: row.company_id,
  name: row.name,
  url: row.url,
  status: row.status,
  consecutiveFailures: row.consecutive_failures,
});
