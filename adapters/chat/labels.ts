import type { ResolutionStage, Severity } from '../../src/domain/model/incident.js';
import type { ShownStatus } from '../../src/domain/model/shown-status.js';

/** How both chat platforms name an incident's severity, its resolution stage and a service's status. */
export const SEVERITY_LABEL: Record<Severity, string> = { minor: 'Minor', major: 'Major' };
export const STAGE_LABEL: Record<ResolutionStage, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
};
export const STATUS_LABEL: Record<ShownStatus, string> = {
  ok: 'Operational',
  minor: 'Minor issues',
  major: 'Major outage',
  maintenance: 'Maintenance',
  unknown: 'No data',
};
