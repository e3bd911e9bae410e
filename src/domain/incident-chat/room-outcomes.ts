import { lockIncident } from '../../db/dialect.js';
import { findIncidentRow, loadIncident } from '../incidents/incident-repository.js';
import type { RoomFailed, RoomOpening } from '../notifications/announcement.js';
import { incidentAnnouncementRows } from '../notifications/channel-outbox.js';
import type { DomainContext } from '../context.js';
import { channelStream } from '../model/channel.js';
import { companyOfIncident, queue, roomChannel, roomInvite } from '../chat/incident-room.js';

/*
 * What becomes of a room once the platform answered its opening (see
 * adapters/chat/delivery.ts): each outcome holds only for the attempt it
 * answers, so that a late answer to an earlier attempt changes nothing.
 */

/**
 * The platform opened the room: it is the incident's from now on, and its
 * message (as the incident now reads) is its first post, which every later
 * change edits and replies under, in the room's stream.
 */
export async function roomOpened(
  ctx: DomainContext,
  args: { incidentId: number; attempt: number; channelId: string; invited: readonly string[] },
): Promise<void> {
  await ctx.write(async (trx) => {
    // Before the room is marked open: a lead named meanwhile is either read below or sees the room open (see lockIncident).
    await lockIncident(trx, args.incidentId);
    const opened = await trx
      .updateTable('incident_rooms')
      .set({ state: 'open', channel_id: args.channelId, error: null, updated_at: ctx.clock.now().getTime() })
      .where('incident_id', '=', args.incidentId)
      .where('attempt', '=', args.attempt)
      .where('state', '=', 'opening')
      .returningAll()
      .executeTakeFirst();
    if (!opened) return;
    const row = await findIncidentRow(trx, args.incidentId, ctx.clock.now().getTime());
    if (!row || row.service_company_id === null) return;
    const incident = await loadIncident(ctx, trx, row);
    const lead = await trx.selectFrom('incident_leads').select(['platform', 'user_id']).where('incident_id', '=', args.incidentId).executeTakeFirst();
    const channel = roomChannel({ ...opened, channel_id: args.channelId }, row.service_company_id);
    const change = {
      event: 'updated' as const,
      incident,
      update: false,
      publicUrl: ctx.publicUrl,
      now: ctx.clock.now().getTime(),
      lead: lead ? { platform: lead.platform, userId: lead.user_id } : null,
    };
    await queue(ctx, trx, incidentAnnouncementRows([channel], change, 'company'));
    // A lead named while the room was being opened is invited now.
    if (lead && !args.invited.includes(lead.user_id)) await roomInvite(ctx, trx, args.incidentId, { platform: lead.platform, userId: lead.user_id });
  });
}

/** The platform refused the room (its name taken, a scope missing): said where it was asked for; asking again retries. */
export async function roomFailed(ctx: DomainContext, args: { opening: RoomOpening; reason: string }): Promise<void> {
  const { opening } = args;
  await ctx.write(async (trx) => {
    const failed = await trx
      .updateTable('incident_rooms')
      .set({ state: 'failed', error: args.reason, updated_at: ctx.clock.now().getTime() })
      .where('incident_id', '=', opening.incidentId)
      .where('attempt', '=', opening.attempt)
      .where('state', '=', 'opening')
      .returning('incident_id')
      .executeTakeFirst();
    if (!failed || !opening.requestedIn) return;
    const notice: RoomFailed = { kind: 'room_failed', channel: opening.requestedIn, incidentId: opening.incidentId, name: opening.name, reason: args.reason };
    await queue(ctx, trx, [
      {
        companyId: await companyOfIncident(trx, opening.incidentId),
        subscriberId: null,
        stream: channelStream(opening.requestedIn),
        event: 'incident.room_failed',
        payload: notice,
        now: ctx.clock.now().getTime(),
      },
    ]);
  });
}
