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
