import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * How many deliveries a process may have under way now, below its
 * concurrency: deliveries are background work, and requests to the API share
 * the process (and the machine) with them. While the event loop runs late —
 * callbacks waiting on deliveries' work, or the process waiting for a CPU —
 * the ceiling halves; while it keeps time the ceiling grows back step by step.
 * A drain then takes the capacity that requests leave, not more.
 */
export interface DeliveryCeiling {
  /** Deliveries that may be under way now. */
  current(): number;
  stop(): void;
}

export interface CeilingRule {
  /** The process's concurrency: the ceiling never goes above it. */
  max: number;
  /** The ceiling never goes below it: a busy process still delivers. */
  min: number;
  /** A loop later than this (the 99th percentile of a window) lowers the ceiling. */
  lateMs: number;
}

/** The next ceiling after a window whose loop ran `lateMs` late at its 99th percentile. */
export function nextCeiling(ceiling: number, lateMs: number, rule: CeilingRule): number {
  if (lateMs > rule.lateMs) return Math.max(rule.min, Math.floor(ceiling / 2));
  return Math.min(rule.max, ceiling + Math.max(1, Math.ceil(rule.max / 16)));
}

/** A ceiling that follows this process's event loop, window by window. */
export function followEventLoop(rule: CeilingRule, windowMs = 250): DeliveryCeiling {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let ceiling = rule.max;
  const timer = setInterval(() => {
    // The histogram counts from each sample's due time: a loop on time reads about the resolution.
    const lateMs = Math.max(0, delay.percentile(99) / 1e6 - 5);
    delay.reset();
    ceiling = nextCeiling(ceiling, lateMs, rule);
  }, windowMs);
  timer.unref();
  return {
    current: () => ceiling,
    stop() {
      clearInterval(timer);
      delay.disable();
    },
  };
}
