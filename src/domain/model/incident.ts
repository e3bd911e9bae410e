import type { ResolutionStage } from '../../db/schema.js';
import type { ServiceStatus } from './service.js';

export type Severity = 'minor' | 'major';
export type { ResolutionStage };

export const SEVERITIES = ['minor', 'major'] as const satisfies readonly Severity[];
export const RESOLUTION_STAGES = ['investigating', 'identified', 'monitoring', 'resolved'] as const satisfies readonly ResolutionStage[];

export interface IncidentUpdate {
  stage: ResolutionStage;
  description: string;
  createdAt: Date;
  /** The service's status just before the update was posted and just after; null where it was not recorded. */
  serviceStatus: { before: ServiceStatus; after: ServiceStatus } | null;
}

/** An incident as lists show it. */
export interface IncidentSummary {
  id: number;
  url: string | null;
  title: string;
  /** Text of the latest update. */
  description: string;
  status: Severity;
  resolved: boolean;
  createdAt: Date;
  resolvedAt: Date | null;
  updatedAt: Date;
  serviceId: number;
  serviceName: string;
  serviceUrlname: string;
  userGenerated: boolean;
  components: string[];
}

/** One incident with its timeline and the addresses around it. */
export interface Incident extends IncidentSummary {
  serviceStatusUrl: string | null;
  severityFromProvider: string | null;
  updates: IncidentUpdate[];
  trackerUrl: string;
}

export type IncidentEvent = 'created' | 'updated' | 'resolved' | 'reopened' | 'deleted';

export const incidentTrackerUrl = (publicUrl: string, id: number): string => `${publicUrl}/incidents/${id}`;
