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
