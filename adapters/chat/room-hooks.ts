import { roomFailed, roomOpened } from '../../src/domain/incident-chat/room-outcomes.js';
import type { DomainContext } from '../../src/domain/context.js';
import type { RoomHooks } from './delivery.js';

/** The domain's side of a room's delivery: it records the room, or says why it was refused. */
export const roomHooks = (ctx: DomainContext): RoomHooks => ({
  opened: (opening, channelId) => roomOpened(ctx, { incidentId: opening.incidentId, attempt: opening.attempt, channelId, invited: opening.invite }),
  failed: (opening, reason) => roomFailed(ctx, { opening, reason }),
});
