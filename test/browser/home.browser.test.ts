import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeWithBrowser, launchBrowser, recordRequests, seriousViolations } from '../helpers/browser.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const PHONE = { width: 360, height: 740 };
/** Waits on states (a page's script rendering) with room for a busy machine. */
const POLL = { interval: 50 };

// The home shows the same on either engine, and the HTTP tests run on both: a second browser run would add time, not coverage.
const describeInBrowser = process.env.STATUSBOT_TEST_ENGINE === 'postgres' ? describe.skip : describeWithBrowser;

describeInBrowser('the home page in Chromium, as a newcomer opens it', () => {
  let browser: Browser;
  let t: TestServer;
  let contexts: { context: BrowserContext; requests: string[] }[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    // No companies in the config: the first start makes the demo.
    t = await startTestServer({ config: '' });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });
  afterEach(async () => {
    const all = contexts;
    contexts = [];
    await Promise.all(all.map((c) => c.context.close()));
    // The home, the demo page and the API reference need nothing from another host.
    const origin = new URL(t.url).origin;
    expect(all.flatMap((c) => c.requests.filter((url) => new URL(url).origin !== origin))).toEqual([]);
  });

  async function openHome(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    contexts.push({ context, requests: recordRequests(context) });
    const page = await context.newPage();
    const res = await page.goto(`${t.url}/`);
    expect(res?.status()).toBe(200);
    return page;
  }

  it('reaches the demo status page in one click', async () => {
    const page = await openHome();
    await expect.poll(() => page.locator('h1').innerText(), POLL).toBe('This statusbot');
    await page.getByRole('link', { name: 'Demo status' }).first().click();
    await page.waitForURL(`${t.url}/status/demo`);
    await expect.poll(() => page.locator('.banner').innerText(), POLL).toContain('All systems operational');
    const services = page.locator('section[aria-labelledby="services"] h3');
    expect(await services.allInnerTexts()).toEqual(['Demo API']);
    await expect.poll(() => page.locator('body').innerText(), POLL).toContain('statusbot health');
    expect(await page.locator('body').innerText()).toContain('GitHub');
  });

  it('reaches the API reference in one click', async () => {
    const page = await openHome();
    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL(`${t.url}/api/docs`);
    // Swagger UI renders the API description with its script: its title and an operation show once it has.
    await expect.poll(() => page.locator('.swagger-ui .info .title').innerText(), POLL).toContain('statusbot API');
    await expect.poll(() => page.locator('.opblock-summary-path').allInnerTexts(), POLL).toContain('/incidents');
  });

  it('reads on a 360 px phone without horizontal scroll, the curl line wrapped, and has no serious accessibility violation', async () => {
    const page = await openHome({ viewport: PHONE, isMobile: true, hasTouch: true });
    await expect.poll(() => page.locator('pre').innerText(), POLL).toContain(`Bearer ${t.demoKey}`);
    const widths = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
      return { scroll: root.scrollWidth, client: root.clientWidth };
    });
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);

    // axe is an inline script: this context alone bypasses the page's CSP.
    for (const colorScheme of ['light', 'dark'] as const) {
      const checked = await openHome({ colorScheme, bypassCSP: true });
      expect(await seriousViolations(checked), colorScheme).toEqual([]);
    }
  });
});
