import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import type { AxeResults, RunOptions } from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe } from 'vitest';
import { PATIENCE_MS } from './patience.js';

/** Debian's Chromium: the browser tests never download a browser of their own. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const browserAvailable = existsSync(CHROMIUM_PATH);

/**
 * A describe block that needs Chromium. Without it the block skips with one
 * line, except in CI, where `.ci/run` installs it and its absence fails the run.
 */
export function describeWithBrowser(name: string, tests: () => void): void {
  if (browserAvailable) {
    describe(name, tests);
    return;
  }
  if (process.env.CI === 'true') throw new Error(`the browser tests need Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
  // Straight to stdout, not console.log: vitest would put a header above a logged line.
  process.stdout.write(`Browser tests skipped: ${CHROMIUM_PATH} not found (apt-get install chromium)\n`);
  describe.skip(name, tests);
}

/**
 * Debian's Chromium, whose contexts wait for a page, a locator or an action as long as any
 * test waits for an event (Playwright's own default is 30 s, a guess a busy machine misses).
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: PATIENCE_MS,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(PATIENCE_MS);
    return context;
  };
  return browser;
}

/** Every URL a context asks for, to show that a page needs nothing from another host. */
export function recordRequests(context: BrowserContext): string[] {
  const urls: string[] = [];
  context.on('request', (request) => urls.push(request.url()));
  return urls;
}

/** One rule axe found broken, trimmed to what a failing assertion should show. */
export interface AxeViolation {
  id: string;
  impact: string | null | undefined;
  help: string;
  nodes: { target: unknown; summary: string }[];
}

/** What the page's global offers once axe is in (the tests are compiled without the DOM's types). */
interface AxeGlobal {
  document: unknown;
  axe: { run(context: unknown, options: RunOptions): Promise<AxeResults> };
}

let axeSource: string | undefined;

/**
 * Runs axe-core on the page (all its rules, or only `rules`) and returns the
 * serious and critical violations. axe is injected as an inline script, so the
 * page's context must bypass the CSP.
 */
export async function seriousViolations(page: Page, rules?: readonly string[]): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: axeSource });
  const options: RunOptions = { resultTypes: ['violations'], ...(rules ? { runOnly: { type: 'rule', values: [...rules] } } : {}) };
  const result = await page.evaluate((o) => {
    const scope = globalThis as unknown as AxeGlobal;
    return scope.axe.run(scope.document, o);
  }, options);
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target, summary: n.failureSummary ?? '' })),
    }));
}
