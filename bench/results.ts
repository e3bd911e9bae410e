import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** bench/results.json in the source tree (this file runs from dist/bench). */
export const RESULTS_FILE = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../bench/results.json');

/** Keeps one benchmark's figures in bench/results.json beside the others'. */
export function recordResult(name: string, figures: Record<string, unknown>): void {
  let results: Record<string, unknown> = {};
  try {
    results = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Record<string, unknown>;
  } catch {
    results = {};
  }
  results[name] = figures;
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
}
