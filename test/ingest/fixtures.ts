import { readFileSync } from 'node:fs';

/** A captured payload from test/fixtures/status-feeds (see its SOURCES.md). */
export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/status-feeds/${name}`, import.meta.url), 'utf8');
}

export function fixtureJson(name: string): Record<string, unknown> {
  return JSON.parse(fixture(name)) as Record<string, unknown>;
}

/** The time of the read: after every fixture was captured. */
export const NOW = new Date('2026-08-20T00:00:00Z');
