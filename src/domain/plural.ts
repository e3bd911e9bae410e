/**
 * A count and its noun, as a reader says it: `1 company`, `2 companies`, `0 feeds`.
 * The plural is the noun with an s unless given (`entry`, `entries`).
 */
export const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`;
