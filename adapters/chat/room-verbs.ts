import { setIncidentLead } from '../../src/domain/incident-chat/set-incident-lead.js';
import { addIncidentNote } from '../../src/domain/chat/incident-notes.js';
import { actingMember, roomOfChannel } from '../../src/domain/chat/incident-room.js';
import { requestIncidentRoom } from '../../src/domain/incident-chat/request-incident-room.js';
import type { ChatPlatform } from '../../src/domain/model/channel.js';
import type { Company } from '../../src/domain/model/company.js';
import type { DomainContext } from '../../src/domain/context.js';
import type { Logger } from '../../src/infrastructure/logger.js';
import { getPostmortem } from '../../src/domain/incidents/postmortem.js';
import { postmortemMarkdown } from '../../src/domain/incidents/postmortem-markdown.js';
import type { ChatReply } from './reply.js';
import { textReply } from './reply.js';
import type { ChatRequest } from './chat-request.js';
import type { Syntax } from './dialect.js';
import { leadSet, noteTaken, postmortemComment, postmortemFailed, postmortemPosted, roomAsked, usage } from './wording.js';

/** The incident a verb is about: the one named, else the one whose room the channel is. */
async function incidentOf(req: ChatRequest, id: number | null): Promise<number | null> {
  if (id !== null) return id;
  return (await roomOfChannel(req.ctx.db, req.channel.platform, req.channel.channelId))?.incidentId ?? null;
}

const usageReply = (req: ChatRequest, syntax: Syntax): ChatReply => textReply(usage(req.dialect, syntax));

/** `/incident lead [id] @person`: the domain checks the member's id. */
export async function lead(req: ChatRequest, company: Company, id: number | null, member: string): Promise<ChatReply> {
  const incidentId = await incidentOf(req, id);
  if (incidentId === null || member === '') return usageReply(req, 'incident_lead');
  await setIncidentLead(req.ctx, company, incidentId, req.dialect.platform, { lead: member });
  return textReply(leadSet(req.dialect, incidentId, { platform: req.dialect.platform, userId: member }));
}

/** `/incident room [id]`: opens the incident's channel in this workspace (once; again after a failure). */
export async function room(req: ChatRequest, company: Company, id: number | null): Promise<ChatReply> {
  const incidentId = await incidentOf(req, id);
  if (incidentId === null) return usageReply(req, 'incident_room');
  const asked = await requestIncidentRoom(req.ctx, company, incidentId, {
    platform: req.dialect.platform,
    workspaceId: req.workspaceId,
    requestedIn: req.channel,
  });
  return textReply(roomAsked(req.dialect, incidentId, asked.room, asked.queued));
}

/** `/incident note <text>` in an incident's room. */
export async function note(req: ChatRequest, text: string): Promise<ChatReply> {
  if (text.trim() === '') return usageReply(req, 'incident_note');
  const author = actingMember(req.ctx)?.userId ?? req.reporter;
  const taken = await addIncidentNote(
    req.ctx,
    { platform: req.channel.platform, channelId: req.channel.channelId },
    { authorId: author, text, messageId: null },
  );
  return textReply(noteTaken(req.dialect, taken.incidentId));
}

/** `/incident postmortem [id]`: the document GET /incidents/:id/postmortem answers, as a file for the channel. */
export async function postmortem(req: ChatRequest, company: Company, id: number | null): Promise<ChatReply> {
  const incidentId = await incidentOf(req, id);
  if (incidentId === null) return usageReply(req, 'incident_postmortem');
  const written = await getPostmortem(req.ctx, company, incidentId);
  return {
    kind: 'file',
    file: {
      filename: `incident-${incidentId}-postmortem.md`,
      title: `Postmortem: ${written.incident.title}`,
      content: postmortemMarkdown(written, req.ctx.clock.now()),
      type: 'text/markdown',
    },
    comment: postmortemComment(req.dialect, written.incident),
    posted: postmortemPosted(req.dialect, incidentId),
    failed: postmortemFailed(req.dialect, incidentId),
  };
}

/** A pinned message as the platform gives it on request. */
export interface PinnedMessage {
  authorId: string;
  text: string;
}

/**
 * A 📌 on a message: in an incident's room, the message becomes a note of
 * its timeline (once, however often it is pinned). The message is read from
 * the platform only then, as a reaction carries no text.
 */
export async function notePinned(
  deps: { ctx: DomainContext; logger: Logger },
  where: { platform: ChatPlatform; channelId: string; messageId: string },
  read: () => Promise<PinnedMessage | null>,
): Promise<void> {
  const { ctx, logger } = deps;
  try {
    if (!(await roomOfChannel(ctx.db, where.platform, where.channelId))) return;
    const message = await read();
    if (!message || message.text.trim() === '') return;
    await addIncidentNote(ctx, where, { authorId: message.authorId, text: message.text, messageId: where.messageId });
  } catch (error) {
    logger.error(`${where.platform}: a pinned message could not be noted`, error);
  }
}
