import type { DomainContext } from '../context.js';

export type { QuorumReach, QuorumReachChange } from '../model/quorum-reach-change.js';
import type { QuorumReach, QuorumReachChange } from '../model/quorum-reach-change.js';

/** Per process (see DomainContext.processState): the monitors last evaluated with their quorum out of reach. */
const outOfReach = new WeakMap<DomainContext['processState'], Set<number>>();

/**
 * Tells the context's onQuorumReach when a monitor's quorum goes out of reach
 * or comes back, once per change rather than once per probe. A monitor first
 * evaluated within reach says nothing.
 */
export function noteQuorumReach(ctx: DomainContext, monitor: { id: number; name: string }, reach: QuorumReach): void {
  const listener = ctx.onQuorumReach;
  if (!listener) return;
  let short = outOfReach.get(ctx.processState);
  if (!short) {
    short = new Set();
    outOfReach.set(ctx.processState, short);
  }
  const inReach = reach.live >= reach.quorum;
  if (inReach !== short.has(monitor.id)) return;
  if (inReach) short.delete(monitor.id);
  else short.add(monitor.id);
  listener({ ...reach, monitorId: monitor.id, monitorName: monitor.name, inReach });
}

/** The log line of a change of reach. */
export function describeQuorumReach(c: QuorumReachChange): string {
  const monitor = `monitor ${c.monitorId} (${c.monitorName}) of ${c.company}`;
  return c.inReach
    ? `${monitor} can go down again: ${c.live} regions report, its quorum is ${c.quorum}`
    : `${monitor} cannot go down: ${c.live === 1 ? '1 region reports' : `${c.live} regions report`}, fewer than its quorum of ${c.quorum} (regions.quorum in the config; statusbot agents list shows the agents)`;
}
