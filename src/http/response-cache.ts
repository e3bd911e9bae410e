/**
 * Answers rendered once and served again while nothing they depend on has
 * changed: each is stored with the change marker it was rendered under (see
 * domain/read-epoch.ts), and is served only while the marker is the same.
 */
export interface ResponseCache<T> {
  /** The answer stored for `key` under `marker`; undefined when none is, or it was rendered under another marker. */
  get(key: string, marker: string): T | undefined;
  set(key: string, marker: string, answer: T): void;
}

/** At most `maxEntries` answers: when full, all are dropped, and what is asked for again is rendered again. */
export function createResponseCache<T>(maxEntries: number): ResponseCache<T> {
  const entries = new Map<string, { marker: string; answer: T }>();
  return {
    get(key, marker) {
      const entry = entries.get(key);
      return entry !== undefined && entry.marker === marker ? entry.answer : undefined;
    },
    set(key, marker, answer) {
      if (entries.size >= maxEntries && !entries.has(key)) entries.clear();
      entries.set(key, { marker, answer });
    },
  };
}

/**
 * Makes each answer once, however many requests ask for it while it is being
 * made: after a change, every reader of a busy page or read misses the cache at
 * once, and each would make the answer (and read the database) for itself. The
 * others get the same answer, or the same failure. `marker` as in ResponseCache:
 * a request under another marker makes its own.
 */
export function createMakingOnce<T>(): (key: string, marker: string, make: () => Promise<T>) => Promise<T> {
  const making = new Map<string, { marker: string; made: Promise<T> }>();
  return (key, marker, make) => {
    const known = making.get(key);
    if (known?.marker === marker) return known.made;
    const made = make().finally(() => {
      if (making.get(key)?.made === made) making.delete(key);
    });
    making.set(key, { marker, made });
    return made;
  };
}
