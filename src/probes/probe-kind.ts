import type { Dispatcher } from 'undici';
import type { DnsRecord, ProbeType } from '../domain/monitors/monitor.js';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import type { ProbeSettings } from './probe-settings.js';

/** A monitor as a probe sees it; the fields past `keyword` are those of one kind. */
export interface ProbeTarget {
  url: string;
  /** Heartbeats are pushed, never probed (see heartbeat.ts). */
  probeType: Exclude<ProbeType, 'heartbeat'>;
  keyword: string | null;
  /** dns */
  record?: DnsRecord | null;
  expect?: readonly string[] | null;
  dnsServer?: string | null;
  /** tls */
  daysBeforeExpiry?: number | null;
}

/** What every probe runs with: the settings, and the process's one HTTP pool (for the kinds that speak HTTP). */
export interface ProbeTools {
  settings: ProbeSettings;
  dispatcher: Dispatcher;
}

/**
 * One kind of probe, one file each: `target → outcome`, up or down with the
 * reason. `probe` is null for a kind that is pushed to the server rather than
 * probed from a region.
 */
export interface ProbeKind<K extends ProbeType = ProbeType> {
  readonly kind: K;
  readonly probe: ((target: ProbeTarget, tools: ProbeTools) => Promise<ProbeOutcome>) | null;
}
