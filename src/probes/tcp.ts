import { connect } from 'node:net';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import { endpointOf, socketProbe } from './socket-connect.js';
import type { ProbeKind } from './probe-kind.js';
import type { ProbeSettings } from './probe-settings.js';

/** Up when a TCP connection to `tcp://host:port` opens within the timeout; nothing is sent. */
function probeTcp(url: string, settings: ProbeSettings): Promise<ProbeOutcome> {
  const { host, port } = endpointOf(url, 0);
  return socketProbe(host, settings, (guard) => connect({ host, port, ...guard }), { event: 'connect', judge: () => ({ ok: true }) });
}

export const tcp = {
  kind: 'tcp',
  probe: (target, { settings }) => probeTcp(target.url, settings),
} as const satisfies ProbeKind<'tcp'>;
