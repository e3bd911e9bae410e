import type { ResolutionStage, Severity } from '../src/domain/incidents/incident.js';

/** How both chat platforms name an incident's severity and resolution stage. */
export const SEVERITY_LABEL: Record<Severity, string> = { minor: 'Minor', major: 'Major' };
export const STAGE_LABEL: Record<ResolutionStage, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};
