import { lockIncident } from '../../db/dialect.js';
import { changesBetween, recordAudit } from '../audit/audit-trail.js';
import { leadInput } from '../chat/incident-chat-input.js';
import { announceIncident, roomInvite } from '../chat/incident-room.js';
import type { DomainContext } from '../context.js';
import type { ChatPlatform } from '../model/channel.js';
import type { Company } from '../model/company.js';
import type { Incident } from '../model/incident.js';
import { parseInput } from '../validation.js';
import { ownIncident } from './own-incident.js';

/**
 * Names the lead of one of the company's incidents: its message shows them
 * (edited in place in every channel showing it, its room too), and they are
 * invited into its room.
 */
export async function setIncidentLead(ctx: DomainContext, company: Company, incidentId: number, platform: ChatPlatform, raw: unknown): Promise<Incident> {
  const { lead } = parseInput(leadInput(platform), raw);
  return ctx.write(async (trx) => {
    // Before the lead is written: a room opening meanwhile either sees this lead or is seen open (see lockIncident).
    await lockIncident(trx, incidentId);
    const now = ctx.clock.now().getTime();
    const incident = await ownIncident(ctx, trx, company, incidentId);
    const before = await trx.selectFrom('incident_leads').select(['platform', 'user_id']).where('incident_id', '=', incidentId).executeTakeFirst();
    await recordAudit(ctx, trx, {
      companyId: company.id,
      action: 'incident.lead',
      targetType: 'incident',
      targetId: String(incidentId),
      changes: changesBetween(before ? { lead: `${before.platform}:${before.user_id}` } : {}, { lead: `${platform}:${lead}` }),
    });
    await trx
      .insertInto('incident_leads')
      .values({ incident_id: incidentId, platform, user_id: lead, set_by: ctx.acting.actor, set_at: now })
      .onConflict((oc) => oc.column('incident_id').doUpdateSet({ platform, user_id: lead, set_by: ctx.acting.actor, set_at: now }))
      .execute();
    await announceIncident(ctx, trx, company, incident, { platform, userId: lead });
    await roomInvite(ctx, trx, incidentId, { platform, userId: lead });
    return incident;
  });
}
