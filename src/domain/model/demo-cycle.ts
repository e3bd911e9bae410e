import type { Severity } from './incident.js';

/** `demo-service` changes state at every 5-minute boundary of the clock. */
export const DEMO_PERIOD_MS = 5 * 60_000;

export const periodAt = (ms: number): number => Math.floor(ms / DEMO_PERIOD_MS);

/**
 * Period k of the cycle: even periods are `ok`; odd ones are outages,
 * alternating `minor` (k ≡ 1 mod 4) and `major` (k ≡ 3 mod 4).
 */
export function cycleSeverity(period: number): Severity | null {
  const r = ((period % 4) + 4) % 4;
  if (r === 1) return 'minor';
  if (r === 3) return 'major';
  return null;
}

export const outageTitle = (severity: Severity): string => `Demo ${severity} outage`;
export const outageDescription = (severity: Severity): string => `The demo service is in a ${severity} outage.`;
/** The closing words of a cycle outage: its description and last update once its period is over. */
export const OUTAGE_OVER = 'The demo outage is over.';
