import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Incident } from '../model/incident.js';
import type { ChatMember, RoomSummary } from '../notifications/announcement.js';
import type { ServiceChannelRow } from '../notifications/channel-outbox.js';
import type { OutboxRow } from '../notifications/enqueue.js';
import { channelStream } from '../model/channel.js';

/** What chat adds to an incident's announcements: its lead, its open room, how many notes it took. */
export interface IncidentChatRoles {
  lead: ChatMember | null;
  room: ServiceChannelRow | null;
  notes: number;
}

/** The chat roles of the company's incidents a change concerns, by incident; none for an incident without any. */
export async function incidentChatRoles(trx: Kysely<Database>, companyId: number, ids: readonly number[]): Promise<Map<number, IncidentChatRoles>> {
  const roles = new Map<number, IncidentChatRoles>();
  if (ids.length === 0) return roles;
  const rows = await trx
    .selectFrom('incidents')
    .leftJoin('incident_leads', 'incident_leads.incident_id', 'incidents.id')
    .leftJoin('incident_rooms', (join) => join.onRef('incident_rooms.incident_id', '=', 'incidents.id').on('incident_rooms.state', '=', 'open'))
    .select((eb) => [
      'incidents.id',
      'incident_leads.platform as lead_platform',
      'incident_leads.user_id as lead_user',
      'incident_rooms.platform as room_platform',
      'incident_rooms.workspace_id as room_workspace',
      'incident_rooms.channel_id as room_channel',
      eb
        .selectFrom('incident_notes')
        .select((n) => n.fn.countAll<number>().as('n'))
        .whereRef('incident_notes.incident_id', '=', 'incidents.id')
        .as('notes'),
    ])
    .where('incidents.id', 'in', ids)
    .execute();
  for (const r of rows) {
    if (!r.lead_platform && !r.room_channel) continue;
    roles.set(Number(r.id), {
      lead: r.lead_platform && r.lead_user ? { platform: r.lead_platform, userId: r.lead_user } : null,
      room:
        r.room_platform && r.room_workspace && r.room_channel
          ? { platform: r.room_platform, workspace_id: r.room_workspace, channel_id: r.room_channel, company_id: companyId }
          : null,
      notes: Number(r.notes ?? 0),
    });
  }
  return roles;
}

/** The summary a resolved incident's room is told. */
export function roomSummaryRow(room: ServiceChannelRow, incident: Incident, roles: IncidentChatRoles, now: number): OutboxRow {
  const channel = { platform: room.platform, workspaceId: room.workspace_id, channelId: room.channel_id };
  const summary: RoomSummary = {
    kind: 'room_summary',
    channel,
    incident: {
      id: incident.id,
      title: incident.title,
      createdAt: incident.createdAt.toISOString(),
      resolvedAt: (incident.resolvedAt ?? new Date(now)).toISOString(),
      trackerUrl: incident.trackerUrl,
    },
    lead: roles.lead,
    updates: incident.updates.length,
    notes: roles.notes,
  };
  return { companyId: room.company_id, subscriberId: null, stream: channelStream(channel), event: 'incident.room_summary', payload: summary, now };
}
