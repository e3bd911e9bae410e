import { httpGet } from './http-get.js';
import type { ProbeKind } from './probe-kind.js';

/** As ping, and the keyword must be in the first MiB of the body. */
export const keyword = {
  kind: 'keyword',
  probe: (target, tools) => httpGet(target.url, target.keyword ?? '', tools),
} as const satisfies ProbeKind<'keyword'>;
