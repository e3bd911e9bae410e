type IncidentAction = 'new' | 'update' | 'resolve';

/** The custom ids of the incident modals, and of the message buttons that open them. */
export const customIds = {
  newIncident: (serviceId: number) => `incident:new:${serviceId}`,
  updateIncident: (id: number) => `incident:update:${id}`,
  resolveIncident: (id: number) => `incident:resolve:${id}`,
};

export function parseCustomId(customId: string): { action: IncidentAction; id: number } | null {
  const m = /^incident:(new|update|resolve):(\d{1,15})$/.exec(customId);
  return m ? { action: m[1] as IncidentAction, id: Number(m[2]) } : null;
}
