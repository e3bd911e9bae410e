import type { Knowledge, ServiceStatus } from './service.js';

/** A service's status as a human surface states it: `unknown` ("No data") where statusbot does not know it. */
export type ShownStatus = ServiceStatus | 'unknown';

/** The status to show, and why there is none when it is unknown. */
export function shownStatus(status: ServiceStatus, knowledge: Knowledge | undefined): { status: ShownStatus; reason: string | null } {
  if (knowledge && !knowledge.known) return { status: 'unknown', reason: knowledge.reason };
  return { status, reason: null };
}
