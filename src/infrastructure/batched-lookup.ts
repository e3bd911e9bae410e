/**
 * Lookups of many keys asked at once — in the same turn of the event loop —
 * answered by one `load` of them all: deliveries started together read their
 * recipients in one query rather than one each.
 */
export function batchedLookup<K, V>(load: (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>): (key: K) => Promise<V | undefined> {
  let waiting: Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]> | null = null;
  return (key) =>
    new Promise((resolve, reject) => {
      if (!waiting) {
        const batch = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
        waiting = batch;
        setImmediate(() => {
          waiting = null;
          load([...batch.keys()]).then(
            (found) => {
              for (const [k, callers] of batch) for (const c of callers) c.resolve(found.get(k));
            },
            (error: unknown) => {
              for (const callers of batch.values()) for (const c of callers) c.reject(error);
            },
          );
        });
      }
      const callers = waiting.get(key) ?? [];
      callers.push({ resolve, reject });
      waiting.set(key, callers);
    });
}
