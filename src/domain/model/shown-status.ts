import type { Knowledge, ServiceStatus } from './service.js';

/** A service's status as a human surface states it: `unknown` ("No data") where statusbot does not know it. */
export type ShownStatus = ServiceStatus | 'unknown';

/** The status to show, and why there is none (since when) when it is unknown. */
export function shownStatus(status: ServiceStatus, knowledge: Knowledge | undefined): { status: ShownStatus; reason: string | null; since: Date | null } {
  if (knowledge && !knowledge.known) return { status: 'unknown', reason: knowledge.reason, since: knowledge.since };
  return { status, reason: null, since: null };
}

/**
 * "the vendor's status feed could not be read since 2026-11-22 10:02 UTC": the reason as one
 * line of text, for surfaces that take text (chat, digests, the CLI); pages write the time their way.
 */
export function reasonText(shown: { reason: string | null; since: Date | null }): string | null {
  if (shown.reason === null) return null;
  return shown.since === null ? shown.reason : `${shown.reason} since ${minuteOf(shown.since)}`;
}

/** `2026-11-22 10:02 UTC`: a time in a reason, the same on every text surface. */
function minuteOf(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
