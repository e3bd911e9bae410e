import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithBrowser, launchBrowser, seriousViolations } from '../helpers/browser.js';
import { PAGES_CONFIG } from '../helpers/pages.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

// What Chromium shows is the same on either engine; the HTTP tests run on both.
const describeInBrowser = process.env.STATUSBOT_TEST_ENGINE === 'postgres' ? describe.skip : describeWithBrowser;

describeInBrowser('update text, compression, the 404 page and the favicon in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let t: TestServer;
  let incidentId: string;
  const answers: { url: string; status: number; encoding: string | undefined }[] = [];

  beforeAll(async () => {
    [browser, t] = await Promise.all([launchBrowser(), startTestServer({ config: PAGES_CONFIG })]);
    const created = await t.api('POST', '/api/v2/incidents', {
      body: {
        service_id: 1001,
        title: 'Card payments fail',
        description: 'Some cards are declined.\nWe are on it.\n\nAffected:\n- **checkout**\n- the <word> API\n\nDetails: https://acme.example/help.',
        status: 'minor',
      },
    });
    incidentId = created.body.data.id;
    // axe is injected as an inline script, which the pages' CSP forbids.
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    context.on('response', (res) => answers.push({ url: res.url(), status: res.status(), encoding: res.headers()['content-encoding'] }));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.stop();
  });

  it('shows paragraphs, a list, bold and a link, from a page Chromium received compressed', async () => {
    const page = await context.newPage();
    await page.goto(`${t.url}/status/acme/incidents/${incidentId}`);
    const text = page.locator('.timeline .update-text');
    expect(await text.locator('p').count()).toBe(3);
    expect(await text.locator('li').allInnerTexts()).toEqual(['checkout', 'the <word> API']);
    expect(await text.locator('strong').innerText()).toBe('checkout');
    const link = text.locator('a');
    expect(await link.getAttribute('href')).toBe('https://acme.example/help');
    expect(await link.innerText()).toBe('https://acme.example/help');
    expect(answers.find((a) => a.url.endsWith(`/incidents/${incidentId}`))?.encoding).toBe('br');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows an HTML 404 in the site layout with a link home, with no axe violations', async () => {
    const page = await context.newPage();
    const res = await page.goto(`${t.url}/status/acme/nope`);
    expect(res?.status()).toBe(404);
    expect(await page.locator('h1').innerText()).toBe('Not found');
    await page.getByRole('link', { name: 'Go to Acme status' }).click();
    await page.waitForURL(`${t.url}/status/acme`);
    expect(await page.locator('h2#services').innerText()).toBe('Services');
    const unknown = await context.newPage();
    await unknown.goto(`${t.url}/status/nope`);
    expect(await seriousViolations(unknown)).toEqual([]);
  });

  it('loads the favicon the layout links', async () => {
    const page = await context.newPage();
    await page.goto(`${t.url}/status/acme`);
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    const icon = await page.evaluate(async (path) => {
      const res = await fetch(path);
      return { status: res.status, type: res.headers.get('content-type'), bytes: (await res.arrayBuffer()).byteLength };
    }, href!);
    expect(icon).toEqual({ status: 200, type: 'image/vnd.microsoft.icon', bytes: expect.any(Number) });
    expect(icon.bytes).toBeGreaterThan(1000);
  });
});
