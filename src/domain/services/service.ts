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

export const serviceTrackerUrl = (publicUrl: string, urlname: string): string =>
  `${publicUrl}/services/${encodeURIComponent(urlname)}`;
