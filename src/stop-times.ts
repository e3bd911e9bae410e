/** How long work under way may take to finish once a stop began, before it is dropped. */
export const STOP_GRACE_MS = 3_000;
/** How long a stop may take in all before the process ends anyway, naming what still ran. */
export const STOP_DEADLINE_MS = 8_000;
