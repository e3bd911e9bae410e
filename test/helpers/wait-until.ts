import { PATIENCE_MS } from './patience.js';

export interface WaitOptions {
  /** How long to wait before calling the wait hung (default PATIENCE_MS; see patience.ts). */
  timeoutMs?: number;
  /** What is waited for, named in the error when the time is up. */
  what?: string;
}

type Awaitable<T> = T | Promise<T>;

/**
 * Asks `probe` again and again (every few milliseconds) until it gives a truthy
 * value, and returns that value: a state the test can see, rather than a guess
 * at how long it takes.
 */
export async function waitUntil<T>(probe: () => Awaitable<T | undefined | null | false | 0 | ''>, options: WaitOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? PATIENCE_MS;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? 'a condition'}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
