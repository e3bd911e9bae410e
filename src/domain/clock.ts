/** The only source of "now" in the domain; tests pass a clock they can move. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to. */
export interface ManualClock extends Clock {
  set(at: Date | string | number): void;
  advance(ms: number): void;
}

export function manualClock(start: Date | string | number): ManualClock {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    set: (at) => {
      current = new Date(at).getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

/** A clock that runs with real time from `start`, and can also be set or moved on. */
export function runningClock(start: Date | string | number): ManualClock {
  let base = new Date(start).getTime();
  let origin = performance.now();
  return {
    now: () => new Date(base + (performance.now() - origin)),
    set: (at) => {
      base = new Date(at).getTime();
      origin = performance.now();
    },
    advance: (ms) => {
      base += ms;
    },
  };
}
