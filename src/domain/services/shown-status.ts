import type { ServiceStatus } from './service.js';

/**
 * Whether statusbot knows a service's status: `known` unless the service has a
 * feed that was never read, or whose last successful read is older than three
 * intervals (see vendors/feed-knowledge.ts). Every human surface shows an
 * unknown status as "No data" with the reason, never as the last status read
 * (the API keeps that one).
 */
export type Knowledge = { known: true } | { known: false; reason: string };

/** A service's status as a human surface states it: `unknown` ("No data") where statusbot does not know it. */
export type ShownStatus = ServiceStatus | 'unknown';

/** The status to show, and why there is none when it is unknown. */
export function shownStatus(status: ServiceStatus, knowledge: Knowledge | undefined): { status: ShownStatus; reason: string | null } {
  if (knowledge && !knowledge.known) return { status: 'unknown', reason: knowledge.reason };
  return { status, reason: null };
}
