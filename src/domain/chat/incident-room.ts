import type { Kysely, Selectable } from 'kysely';
import type { ChatPlatform, Database, IncidentRoomState, IncidentRoomsTable } from '../../db/schema.js';
import { created, recordAudit } from '../audit/audit-trail.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import type { Incident } from '../model/incident.js';
import type { ChatMember, RoomOpening } from '../notifications/announcement.js';
import { channelsFollowingIncidentsQuery, incidentAnnouncementRows } from '../notifications/channel-outbox.js';
import type { ServiceChannelRow } from '../notifications/channel-outbox.js';
import { enqueueAll, queuable, requeueDead } from '../notifications/enqueue.js';
import type { OutboxRow } from '../notifications/enqueue.js';
import type { ChannelRef } from '../model/channel.js';
import { roomName } from './room-name.js';

/** An incident's own channel: asked for (`opening`), opened, or not opened (`failed`, with the platform's reason). */
export interface IncidentRoom {
  incidentId: number;
  platform: ChatPlatform;
  workspaceId: string;
  /** Null until opened. */
  channelId: string | null;
  name: string;
  state: IncidentRoomState;
  attempt: number;
  error: string | null;
  createdAt: Date;
}

type RoomRow = Selectable<IncidentRoomsTable>;
const roomRows = (db: Kysely<Database>) => db.selectFrom('incident_rooms').selectAll();
const toRoom = (r: RoomRow): IncidentRoom => ({
  incidentId: Number(r.incident_id),
  platform: r.platform,
  workspaceId: r.workspace_id,
  channelId: r.channel_id,
  name: r.name,
  state: r.state,
  attempt: Number(r.attempt),
  error: r.error,
  createdAt: new Date(Number(r.created_at)),
});

/** The room of an incident, in whatever state, or null when none was asked for. */
export async function incidentRoom(db: Kysely<Database>, incidentId: number): Promise<IncidentRoom | null> {
  const row = await roomRows(db).where('incident_id', '=', incidentId).executeTakeFirst();
  return row ? toRoom(row) : null;
}

/** The open room a channel is, or null. */
export async function roomOfChannel(db: Kysely<Database>, platform: ChatPlatform, channelId: string): Promise<IncidentRoom | null> {
  const row = await roomRows(db).where('platform', '=', platform).where('channel_id', '=', channelId).where('state', '=', 'open').executeTakeFirst();
  return row ? toRoom(row) : null;
}

export const roomChannel = (room: { platform: ChatPlatform; workspace_id: string; channel_id: string }, companyId: number): ServiceChannelRow => ({
  platform: room.platform,
  workspace_id: room.workspace_id,
  channel_id: room.channel_id,
  company_id: companyId,
});

export async function queue(ctx: DomainContext, trx: Kysely<Database>, rows: readonly OutboxRow[]): Promise<void> {
  await enqueueAll(
    trx,
    rows.filter((r) => queuable(ctx, r.stream)),
  );
}

/** The incident's message as it now reads, edited in every channel showing it and in its room. */
export async function announceIncident(
  ctx: DomainContext,
  trx: Kysely<Database>,
  company: Company,
  incident: Incident,
  lead: ChatMember | null,
): Promise<void> {
  const channels: ServiceChannelRow[] = (await channelsFollowingIncidentsQuery(trx, company.id).orderBy('channel_subscriptions.id').execute()).map((c) => ({
    platform: c.platform,
    workspace_id: c.workspace_id,
    channel_id: c.channel_id,
    company_id: company.id,
  }));
  const room = await roomRows(trx).where('incident_id', '=', incident.id).where('state', '=', 'open').executeTakeFirst();
  if (room?.channel_id) channels.push(roomChannel({ ...room, channel_id: room.channel_id }, company.id));
  const change = { event: 'updated' as const, incident, update: false, publicUrl: ctx.publicUrl, now: ctx.clock.now().getTime(), lead };
  await queue(ctx, trx, incidentAnnouncementRows(channels, change, 'company'));
}

/** The outbox stream that opens an incident's room: its own, as the room's channel is not known yet. */
export const roomOpeningStream = (platform: ChatPlatform, workspaceId: string, incidentId: number): string => `${platform}:${workspaceId}:room-${incidentId}`;

function openingRow(companyId: number, opening: RoomOpening, platform: ChatPlatform, now: number): OutboxRow {
  return {
    companyId,
    subscriberId: null,
    stream: roomOpeningStream(platform, opening.workspaceId, opening.incidentId),
    event: 'incident.room',
    payload: opening,
    now,
  };
}

/** The company whose service the incident is on (0 for a catalog incident, which has no room). */
export async function companyOfIncident(trx: Kysely<Database>, incidentId: number): Promise<number> {
  const row = await trx
    .selectFrom('incidents')
    .innerJoin('services', 'services.id', 'incidents.service_id')
    .select('services.company_id')
    .where('incidents.id', '=', incidentId)
    .executeTakeFirst();
  return Number(row?.company_id ?? 0);
}

/** The last row that opened (or invited into) the room, whatever became of it; undefined once purged. */
async function lastOpening(trx: Kysely<Database>, room: RoomRow): Promise<{ id: number; state: 'pending' | 'sent' | 'dead'; payload: string } | undefined> {
  const row = await trx
    .selectFrom('outbox')
    .select(['id', 'state', 'payload'])
    .where('stream', '=', roomOpeningStream(room.platform, room.workspace_id, Number(room.incident_id)))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { id: Number(row.id), state: row.state, payload: row.payload } : undefined;
}

/** Invites a member into the incident's open room on their platform (the lead, named after it opened). */
export async function roomInvite(ctx: DomainContext, trx: Kysely<Database>, incidentId: number, member: ChatMember): Promise<void> {
  const room = await roomRows(trx).where('incident_id', '=', incidentId).where('state', '=', 'open').executeTakeFirst();
  if (!room?.channel_id || room.platform !== member.platform) return;
  const companyId = await companyOfIncident(trx, incidentId);
  const opening: RoomOpening = {
    kind: 'room',
    incidentId,
    workspaceId: room.workspace_id,
    name: room.name,
    channelId: room.channel_id,
    invite: [member.userId],
    attempt: Number(room.attempt),
    requestedIn: null,
  };
  await queue(ctx, trx, [openingRow(companyId, opening, room.platform, ctx.clock.now().getTime())]);
}

/** The chat member acting (`slack:<team>/<user>`), or null for the API and jobs. */
export function actingMember(ctx: DomainContext): (ChatMember & { workspaceId: string }) | null {
  const m = /^(slack|discord):([^/]+)\/(.+)$/.exec(ctx.acting.actor);
  return m ? { platform: m[1] as ChatPlatform, workspaceId: m[2]!, userId: m[3]! } : null;
}

export interface RoomRequest {
  platform: ChatPlatform;
  workspaceId: string;
  /** Where it was asked for: told if it cannot be opened. */
  requestedIn: ChannelRef | null;
}

/**
 * Asks for the incident's room in its transaction: one per incident, whoever
 * asks and on whichever replica (the row's key). Asked again after the
 * platform refused it, it is opened under the next attempt's name; after its
 * opening was given up (dead after its retries), that opening is tried again.
 * Returns the room and whether this call queued its opening.
 */
export async function requestRoomIn(
  ctx: DomainContext,
  trx: Kysely<Database>,
  company: Company,
  incident: Incident,
  where: RoomRequest,
): Promise<{ room: IncidentRoom; queued: boolean }> {
  const now = ctx.clock.now().getTime();
  const existing = await roomRows(trx).where('incident_id', '=', incident.id).executeTakeFirst();
  if (existing?.state === 'open') return { room: toRoom(existing), queued: false };
  if (existing?.state === 'opening') {
    const opening = await lastOpening(trx, existing);
    if (opening?.state === 'pending') return { room: toRoom(existing), queued: false };
    // Given up after its retries: tried again as it was, so that a channel it made already is the room, not a second one,
    // with whoever asks now invited too (none updated: another request retried it meanwhile).
    if (opening?.state === 'dead') {
      const earlier = JSON.parse(opening.payload) as RoomOpening;
      const asker = actingMember(ctx);
      const invite = asker?.platform === existing.platform && !earlier.invite.includes(asker.userId) ? [...earlier.invite, asker.userId] : earlier.invite;
      const retried = await requeueDead(trx, now)
        .set({ payload: JSON.stringify({ ...earlier, invite }) })
        .where('id', '=', opening.id)
        .executeTakeFirst();
      return { room: toRoom(existing), queued: Number(retried.numUpdatedRows) === 1 };
    }
  }
  const attempt = existing ? Number(existing.attempt) + 1 : 1;
  const name = roomName(incident.id, incident.title, attempt);
  const values = {
    platform: where.platform,
    workspace_id: where.workspaceId,
    channel_id: null,
    name,
    state: 'opening' as const,
    attempt,
    error: null,
    updated_at: now,
  };
  const written = existing
    ? await trx
        .updateTable('incident_rooms')
        .set(values)
        .where('incident_id', '=', incident.id)
        .where('attempt', '=', existing.attempt)
        .returningAll()
        .executeTakeFirst()
    : await trx
        .insertInto('incident_rooms')
        .values({ incident_id: incident.id, created_at: now, ...values })
        .onConflict((oc) => oc.column('incident_id').doNothing())
        .returningAll()
        .executeTakeFirst();
  if (!written) {
    // Another request took it meanwhile.
    const taken = await roomRows(trx).where('incident_id', '=', incident.id).executeTakeFirstOrThrow();
    return { room: toRoom(taken), queued: false };
  }
  await recordAudit(ctx, trx, {
    companyId: company.id,
    action: 'incident.room',
    targetType: 'incident',
    targetId: String(incident.id),
    changes: created({ room: `${where.platform}:${where.workspaceId}:${name}` }),
  });
  const invite = new Set<string>();
  const asker = actingMember(ctx);
  if (asker?.platform === where.platform) invite.add(asker.userId);
  const lead = await trx.selectFrom('incident_leads').select(['platform', 'user_id']).where('incident_id', '=', incident.id).executeTakeFirst();
  if (lead?.platform === where.platform) invite.add(lead.user_id);
  const opening: RoomOpening = {
    kind: 'room',
    incidentId: incident.id,
    workspaceId: where.workspaceId,
    name,
    channelId: null,
    invite: [...invite],
    attempt,
    requestedIn: where.requestedIn,
  };
  await queue(ctx, trx, [openingRow(company.id, opening, where.platform, now)]);
  return { room: toRoom(written), queued: true };
}

/**
 * With `chat.incident_channels`, an incident that becomes major (declared so,
 * raised to it, or reopened as it) gets its room, once: in the workspace
 * whoever changed it acts from, else in the company's linked workspace.
 */
export async function openRoomWhenMajor(ctx: DomainContext, trx: Kysely<Database>, company: Company, incident: Incident): Promise<void> {
  if (incident.status !== 'major' || incident.resolved) return;
  const setting = await trx.selectFrom('companies').select('incident_channels').where('id', '=', company.id).executeTakeFirst();
  if (Number(setting?.incident_channels ?? 0) !== 1) return;
  const asker = actingMember(ctx);
  const linked = await trx
    .selectFrom('chat_links')
    .select(['platform', 'workspace_id'])
    .where('company_id', '=', company.id)
    .orderBy('platform', 'desc')
    .execute();
  const workspace = linked.find((l) => asker && l.platform === asker.platform && l.workspace_id === asker.workspaceId) ?? linked[0];
  if (!workspace || ctx.chatOff.has(workspace.platform)) return;
  await requestRoomIn(ctx, trx, company, incident, { platform: workspace.platform, workspaceId: workspace.workspace_id, requestedIn: null });
}
