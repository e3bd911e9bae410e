import type { Knowledge } from './shown-status.js';

export type ServiceStatus = 'ok' | 'minor' | 'major' | 'maintenance';

export interface Service {
  id: number;
  name: string;
  urlname: string;
  /** Null for the third-party catalog; the owner for a custom service. */
  companyId: number | null;
  statusPageUrl: string | null;
  trackerUrl: string;
}

export interface ServiceWithStatus extends Service {
  status: ServiceStatus;
}

/** A service as `GET /services/{name}` shows it: with its feed's health where it has a feed. */
export interface ServiceDetail extends ServiceWithStatus {
  lastCheckedAt: Date | null;
  feedError: string | null;
  /** Whether `status` is known now; human surfaces show "No data" and the reason when it is not (the API shows `status`). */
  knowledge: Knowledge;
}

export const serviceTrackerUrl = (publicUrl: string, urlname: string): string =>
  `${publicUrl}/services/${encodeURIComponent(urlname)}`;
