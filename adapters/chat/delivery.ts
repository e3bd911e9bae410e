import { DeliveryFailure } from '../../src/delivery/publisher.js';
import type { Delivery, DeliveryRecorder, Publisher } from '../../src/delivery/publisher.js';
import type { ChatPlatform } from '../../src/domain/model/channel.js';
import { digestSubject, incidentSubject } from '../../src/domain/notifications/announcement.js';
import type {
  Announcement,
  DigestAnnouncement,
  IncidentAnnouncement,
  MaintenanceAnnouncement,
  MonitorAnnouncement,
  RoomFailed,
  RoomOpening,
  RoomSummary,
  StatusChangeAnnouncement,
} from '../../src/domain/notifications/announcement.js';

/**
 * What a platform does for delivery: post a message, edit one, reply to one.
 * Each resolves once the platform confirmed it, and throws DeliveryFailure
 * (with Retry-After where the platform gave one) otherwise. `key` is the same
 * for every attempt of one step, for platforms that can drop a repeated post.
 */
export interface ChatPort<M> {
  readonly platform: ChatPlatform;
  /** Least time between two deliveries to one channel. */
  readonly minIntervalMs: number;
  /**
   * Each call is given the delivery's signal: a client that takes one ends its
   * request when the delivery's deadline passes or the process stops (one
   * that does not is no longer waited for, see the outbox worker).
   */
  post(channelId: string, message: M, key: string, signal?: AbortSignal): Promise<string>;
  /** False when the message no longer exists (deleted, or too old to edit): a new one takes its place. */
  edit(channelId: string, messageId: string, message: M, signal?: AbortSignal): Promise<boolean>;
  reply(channelId: string, parentId: string, message: M, key: string, signal?: AbortSignal): Promise<string>;
  /** Opens a channel of this name in the workspace; its id. Throws RoomRefused when the platform refuses it for good. */
  createChannel(workspaceId: string, name: string, signal?: AbortSignal): Promise<string>;
  /** Lets these members into the channel (one already in is fine); throws RoomRefused when the platform refuses for good. */
  invite(workspaceId: string, channelId: string, userIds: readonly string[], signal?: AbortSignal): Promise<void>;
}

/** The platform refused to open a room for a reason no retry changes (`name_taken`, `missing_scope`). */
export class RoomRefused extends Error {
  constructor(readonly reason: string) {
    super(`the room was refused: ${reason}`);
    this.name = 'RoomRefused';
  }
}

/** What becomes of a room once the platform answered: the domain's (see domain/chat/incident-room.ts). */
export interface RoomHooks {
  opened(opening: RoomOpening, channelId: string): Promise<void>;
  failed(opening: RoomOpening, reason: string): Promise<void>;
}

/** How a platform shows each announcement. */
export interface ChatRenderer<M> {
  incident(a: IncidentAnnouncement): M;
  /** The update of an incident announcement, as a reply under its message. */
  update(a: IncidentAnnouncement, update: NonNullable<IncidentAnnouncement['update']>): M;
  statusChange(a: StatusChangeAnnouncement): M;
  monitor(a: MonitorAnnouncement): M;
  digest(a: DigestAnnouncement): M;
  maintenance(a: MaintenanceAnnouncement): M;
  roomFailed(a: RoomFailed): M;
  roomSummary(a: RoomSummary): M;
}

/** The steps a delivery records once the platform confirmed them, the same on every platform. */
export const STEP = { message: 'message', reply: 'reply', channel: 'channel', invite: 'invite', opened: 'opened' } as const;

/** A platform's port and renderer, and what becomes of its rooms: what every step of a delivery runs with. */
interface ChatDelivery<M> {
  port: ChatPort<M>;
  render: ChatRenderer<M>;
  rooms: RoomHooks | undefined;
}

/**
 * The one delivery state machine of chat announcements: post → remember the
 * message → edit it in place later → reply under it. Each confirmed step is
 * recorded before the next starts, so that a retry (after a failure or a
 * restart) resumes after the last confirmed step and repeats none.
 */
export function createChatPublisher<M>(port: ChatPort<M>, render: ChatRenderer<M>, rooms?: RoomHooks): Publisher {
  const prefix = `${port.platform}:`;
  const chat: ChatDelivery<M> = { port, render, rooms };
  return {
    name: port.platform,
    streamPrefix: prefix,
    minIntervalMs: (stream) => (stream.startsWith(prefix) ? port.minIntervalMs : 0),
    deliver: (delivery, recorder) => deliverAnnouncement(chat, delivery, recorder),
  };
}

/** Each kind of announcement by its own steps. */
async function deliverAnnouncement<M>(c: ChatDelivery<M>, delivery: Delivery, recorder: DeliveryRecorder): Promise<void> {
  const { render } = c;
  const announcement = delivery.payload as Announcement;
  switch (announcement.kind) {
    case 'incident':
      return deliverIncident(c, announcement, delivery, recorder);
    case 'status_change':
      return deliverOnce(c, announcement.channel.channelId, render.statusChange(announcement), delivery, recorder);
    case 'monitor':
      return deliverOnce(c, announcement.channel.channelId, render.monitor(announcement), delivery, recorder);
    case 'digest':
      return deliverDigest(c, announcement, delivery, recorder);
    case 'maintenance':
      return deliverOnce(c, announcement.channel.channelId, render.maintenance(announcement), delivery, recorder);
    case 'room':
      return deliverRoom(c, announcement, delivery, recorder);
    case 'room_failed':
      return deliverOnce(c, announcement.channel.channelId, render.roomFailed(announcement), delivery, recorder);
    case 'room_summary':
      return deliverOnce(c, announcement.channel.channelId, render.roomSummary(announcement), delivery, recorder);
    default: {
      const unknown: never = announcement;
      throw new DeliveryFailure(`unknown announcement ${JSON.stringify((unknown as { kind?: unknown }).kind)}`);
    }
  }
}

/**
 * An incident has one message per channel, edited in place; every update
 * (the opening one too) is a reply under it, so that its thread is the whole
 * timeline while the message shows the latest state. A deletion is shown
 * only where the incident was shown.
 */
async function deliverIncident<M>({ port, render }: ChatDelivery<M>, a: IncidentAnnouncement, delivery: Delivery, recorder: DeliveryRecorder): Promise<void> {
  const channel = a.channel.channelId;
  let shownAt = delivery.progress[STEP.message];
  if (!shownAt) {
    const subject = incidentSubject(a.incident.id);
    const message = render.incident(a);
    const shown = await recorder.messageOf(channel, subject);
    if (shown && (await port.edit(channel, shown, message, delivery.signal))) {
      shownAt = shown;
    } else {
      if (a.event === 'deleted') return;
      shownAt = await port.post(channel, message, `sb${delivery.id}m`, delivery.signal);
      await recorder.rememberMessage(channel, subject, shownAt);
    }
    await recorder.step(STEP.message, shownAt);
  }
  if (a.update && !delivery.progress[STEP.reply]) {
    await recorder.step(STEP.reply, await port.reply(channel, shownAt, render.update(a, a.update), `sb${delivery.id}r`, delivery.signal));
  }
}

/** A message posted once and never edited: a status change, a monitor alert, a maintenance's move. */
async function deliverOnce<M>({ port }: ChatDelivery<M>, channel: string, message: M, delivery: Delivery, recorder: DeliveryRecorder): Promise<void> {
  if (delivery.progress[STEP.message]) return;
  await recorder.step(STEP.message, await port.post(channel, message, `sb${delivery.id}m`, delivery.signal));
}

/**
 * With edit-in-place, one message per subscription shows the latest digest.
 * The latest digest is remembered either way, so that turning edit-in-place
 * on later edits it instead of posting another.
 */
async function deliverDigest<M>({ port, render }: ChatDelivery<M>, a: DigestAnnouncement, delivery: Delivery, recorder: DeliveryRecorder): Promise<void> {
  if (delivery.progress[STEP.message]) return;
  const channel = a.channel.channelId;
  const subject = digestSubject(a.subscriptionId);
  const message = render.digest(a);
  const shown = a.editInPlace ? await recorder.messageOf(channel, subject) : null;
  if (shown && (await port.edit(channel, shown, message, delivery.signal))) {
    await recorder.step(STEP.message, shown);
    return;
  }
  const posted = await port.post(channel, message, `sb${delivery.id}m`, delivery.signal);
  await recorder.rememberMessage(channel, subject, posted);
  await recorder.step(STEP.message, posted);
}

/**
 * A room: open the channel → invite → hand it to the domain, which queues
 * the incident's message in the room's own stream. The channel's id is
 * recorded before inviting, so that a retry (after a failed invite, or on
 * another replica) invites into it instead of opening a second one.
 */
async function deliverRoom<M>({ port, rooms }: ChatDelivery<M>, a: RoomOpening, delivery: Delivery, recorder: DeliveryRecorder): Promise<void> {
  if (!rooms) throw new DeliveryFailure('rooms are not handled here', { permanent: true });
  let channel = a.channelId ?? delivery.progress[STEP.channel];
  if (!channel) {
    try {
      channel = await port.createChannel(a.workspaceId, a.name, delivery.signal);
    } catch (error) {
      if (!(error instanceof RoomRefused)) throw error;
      await rooms.failed(a, error.reason);
      return;
    }
    await recorder.step(STEP.channel, channel);
  }
  if (a.invite.length > 0 && !delivery.progress[STEP.invite]) {
    try {
      await port.invite(a.workspaceId, channel, a.invite, delivery.signal);
      await recorder.step(STEP.invite, a.invite.join(','));
    } catch (error) {
      // A refused invitation leaves the room open: members can join it themselves.
      if (!(error instanceof RoomRefused)) throw error;
      await recorder.step(STEP.invite, `refused: ${error.reason}`);
    }
  }
  if (a.channelId === null && !delivery.progress[STEP.opened]) {
    await rooms.opened(a, channel);
    await recorder.step(STEP.opened, channel);
  }
}
