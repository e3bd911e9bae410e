/** One probe of an agent, as it will be sent. */
export interface AgentResult {
  monitorId: number;
  ok: boolean;
  reason: string | null;
  latencyMs: number;
  /** When it ran, on the agent's clock (epoch ms); sent as an age. */
  at: number;
  /** Its place among the results of the agent's run, from 1: a batch sent again is recorded once. */
  seq: number;
}

export interface ResultBuffer {
  push(result: AgentResult): void;
  /** The oldest results, at most `max`, left in place until `sent`. */
  peek(max: number): AgentResult[];
  /** Forgets the `count` oldest results (sent, or refused) and `drops` of the drops not yet reported. */
  sent(count: number, drops: number): void;
  readonly size: number;
  /** Drops the server has not been told of. */
  readonly unreportedDrops: number;
  /** Results dropped since the start. */
  readonly droppedTotal: number;
}

/**
 * What an agent saw and the server has not taken yet, in the order seen. Full,
 * it drops its oldest result for each new one (a newer result says more of
 * the target now) and counts the drop; `onDrop` hears of each.
 */
export function createResultBuffer(capacity: number, onDrop?: (droppedTotal: number) => void): ResultBuffer {
  let items: AgentResult[] = [];
  let dropped = 0;
  let droppedTotal = 0;
  return {
    push(result) {
      items.push(result);
      if (items.length > capacity) {
        items = items.slice(items.length - capacity);
        dropped++;
        droppedTotal++;
        onDrop?.(droppedTotal);
      }
    },
    peek: (max) => items.slice(0, max),
    sent(count, drops) {
      items = items.slice(count);
      dropped = Math.max(0, dropped - drops);
    },
    get size() {
      return items.length;
    },
    get unreportedDrops() {
      return dropped;
    },
    get droppedTotal() {
      return droppedTotal;
    },
  };
}
