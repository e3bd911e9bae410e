import type { ProbeType } from '../domain/monitors/monitor.js';
import { dns } from './dns.js';
import { heartbeat } from './heartbeat.js';
import { keyword } from './keyword.js';
import { ping } from './ping.js';
import type { ProbeKind } from './probe-kind.js';
import { tcp } from './tcp.js';
import { tls } from './tls.js';

/** Every probe kind, one line each: the compiler holds it to the domain's PROBE_TYPES, each entry under its own name. */
export const PROBE_KINDS = { ping, keyword, tcp, dns, tls, heartbeat } as const satisfies { readonly [K in ProbeType]: ProbeKind<K> };

/** The kinds probed from a region (by the servers' prober and by agents); the others are pushed. */
export type ProbedType = { [K in ProbeType]: (typeof PROBE_KINDS)[K]['probe'] extends null ? never : K }[ProbeType];

export const isProbed = (type: ProbeType): type is ProbedType => PROBE_KINDS[type].probe !== null;
