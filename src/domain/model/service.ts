export type ServiceStatus = 'ok' | 'minor' | 'major' | 'maintenance';

/**
 * Whether statusbot knows a service's status: `known` unless the service has a
 * feed that was never read, or whose last successful read is older than three
 * intervals (see services/feed-knowledge.ts). Every human surface shows an
 * unknown status as "No data" with the reason, never as the last status read
 * (the API keeps that one). The reason is for the public: it never holds the
 * feed's address nor how its read failed (operators read those in `statusbot
 * feeds`, the logs and the metrics); `since` is the last successful read, which
 * each surface writes in its own way ("… could not be read since 10:42").
 */
export type Knowledge = { known: true } | { known: false; reason: string; since: Date | null };

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

export const serviceTrackerUrl = (publicUrl: string, urlname: string): string => `${publicUrl}/services/${encodeURIComponent(urlname)}`;
