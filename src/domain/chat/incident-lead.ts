import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ChatMember } from '../notifications/announcement.js';

export interface IncidentLead extends ChatMember {
  /** Who named the lead (`slack:<team>/<user>`…). */
  setBy: string;
  setAt: Date;
}

/** Who leads an incident, or null while nobody was named. */
export async function incidentLead(db: Kysely<Database>, incidentId: number): Promise<IncidentLead | null> {
  const row = await db.selectFrom('incident_leads').selectAll().where('incident_id', '=', incidentId).executeTakeFirst();
  return row ? { platform: row.platform, userId: row.user_id, setBy: row.set_by, setAt: new Date(Number(row.set_at)) } : null;
}
