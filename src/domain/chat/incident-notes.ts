import type { Kysely } from 'kysely';
import type { ChatPlatform, Database } from '../../db/schema.js';
import { created, recordAudit } from '../audit/audit-trail.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { parseInput } from '../validation.js';
import { noteInput } from './incident-chat-input.js';
import { companyOfIncident, roomOfChannel } from './incident-room.js';

/** A note of an incident's timeline, taken in its room. */
export interface IncidentNote {
  id: number;
  incidentId: number;
  platform: ChatPlatform;
  authorId: string;
  text: string;
  /** The pinned message it was taken from; null for `/incident note`. */
  messageId: string | null;
  createdAt: Date;
}

/** An incident's notes, oldest first. */
export async function incidentNotes(db: Kysely<Database>, incidentId: number): Promise<IncidentNote[]> {
  const rows = await db.selectFrom('incident_notes').selectAll().where('incident_id', '=', incidentId).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({
    id: Number(r.id),
    incidentId: Number(r.incident_id),
    platform: r.platform,
    authorId: r.author_id,
    text: r.text,
    messageId: r.message_id,
    createdAt: new Date(Number(r.created_at)),
  }));
}

export interface NoteTaken {
  incidentId: number;
  /** False when the message was noted already (pinned twice). */
  added: boolean;
}

/**
 * Adds a note to the timeline of the incident whose room the channel is: a
 * `/incident note`, or a message pinned with 📌 (noted once, whoever pins it again).
 */
export async function addIncidentNote(
  ctx: DomainContext,
  where: { platform: ChatPlatform; channelId: string },
  note: { authorId: string; text: unknown; messageId: string | null },
): Promise<NoteTaken> {
  const { text } = parseInput(noteInput, { text: note.text });
  const room = await roomOfChannel(ctx.db, where.platform, where.channelId);
  if (!room) throw notFound("incident of this channel (notes are taken in an incident's room)");
  return ctx.write(async (trx) => {
    const added = await trx
      .insertInto('incident_notes')
      .values({
        incident_id: room.incidentId,
        platform: where.platform,
        author_id: note.authorId,
        text,
        message_id: note.messageId,
        created_at: ctx.clock.now().getTime(),
      })
      .onConflict((oc) => oc.columns(['incident_id', 'message_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (added) {
      const company = await companyOfIncident(trx, room.incidentId);
      await recordAudit(ctx, trx, {
        companyId: company,
        action: 'incident.note',
        targetType: 'incident',
        targetId: String(room.incidentId),
        changes: created({ note: Number(added.id) }),
      });
    }
    return { incidentId: room.incidentId, added: added !== undefined };
  });
}
