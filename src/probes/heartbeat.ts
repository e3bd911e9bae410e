import type { ProbeKind } from './probe-kind.js';

/**
 * Pushed, not probed: the monitored job pings the server, and the server's
 * prober only checks, at its turn, that a ping came in time (domain/monitors/heartbeats.ts).
 */
export const heartbeat = { kind: 'heartbeat', probe: null } as const satisfies ProbeKind<'heartbeat'>;
