import { createOutboundDispatcher } from '../infrastructure/outbound.js';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import type { ProbeTarget } from './probe-kind.js';
import { PROBE_KINDS } from './probe-kinds.js';
import type { ProbeSettings } from './probe-settings.js';

export type { ProbeSettings, ProbeTarget };

export interface ProbeClient {
  probe(target: ProbeTarget): Promise<ProbeOutcome>;
  close(): Promise<void>;
}

/**
 * Probes of every kind but heartbeats (which are pushed, not probed), each
 * answering up or down with the reason: the target's kind, found in the
 * registry, probes it. HTTP probes run over one shared connection pool.
 */
export function createProbeClient(settings: ProbeSettings): ProbeClient {
  const { dispatcher, close } = createOutboundDispatcher({ ...settings, followRedirects: true });
  const tools = { settings, dispatcher };
  return {
    probe: (target) => PROBE_KINDS[target.probeType].probe(target, tools),
    close,
  };
}
