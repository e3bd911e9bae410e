import { lockIncident } from '../../db/dialect.js';
import { requestRoomIn } from '../chat/incident-room.js';
import type { IncidentRoom, RoomRequest } from '../chat/incident-room.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { Company } from '../model/company.js';
import { ownIncident } from './own-incident.js';

/** `/incident room`: the room of one of the company's open incidents, in the workspace asked from. */
export async function requestIncidentRoom(
  ctx: DomainContext,
  company: Company,
  incidentId: number,
  where: RoomRequest,
): Promise<{ room: IncidentRoom; queued: boolean }> {
  return ctx.write(async (trx) => {
    // It reads the lead to invite: taken before, as by the lead's own change (see lockIncident).
    await lockIncident(trx, incidentId);
    const incident = await ownIncident(ctx, trx, company, incidentId);
    if (incident.resolved) throw new DomainError('conflict', `incident #${incident.id} is resolved; rooms are for open incidents`);
    return requestRoomIn(ctx, trx, company, incident, where);
  });
}
