import { httpGet } from './http-get.js';
import type { ProbeKind } from './probe-kind.js';

/** HTTP GET: 2xx, or a 3xx that sends nowhere else, is up; redirects followed (see http-get.ts). */
export const ping = {
  kind: 'ping',
  probe: (target, tools) => httpGet(target.url, null, tools),
} as const satisfies ProbeKind<'ping'>;
