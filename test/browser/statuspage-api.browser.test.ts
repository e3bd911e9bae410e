import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithBrowser, launchBrowser, seriousViolations } from '../helpers/browser.js';
import { STATUSPAGE_API_CONFIG, STATUSPAGE_ENDPOINTS } from '../helpers/pages.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

// What Chromium does here is the same on either engine; the HTTP tests run on both.
const describeInBrowser = process.env.STATUSBOT_TEST_ENGINE === 'postgres' ? describe.skip : describeWithBrowser;

describeInBrowser('a grouped status page and its Statuspage documents in Chromium', () => {
  let browser: Browser;
  let t: TestServer;
  /** A page of another origin, as a dashboard or Statuspage's widget would be. */
  let elsewhere: Server;
  let elsewhereUrl: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await startTestServer({ config: STATUSPAGE_API_CONFIG });
    elsewhere = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="en"><title>Dashboard</title><p>Dashboard</p></html>');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    // Another port is another origin: the dashboard's requests are cross-origin.
    elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await new Promise((resolve) => elsewhere?.close(resolve));
  });

  it('shows a group’s services under its heading, in the config’s order, with no serious accessibility violation', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    try {
      const page = await context.newPage();
      expect((await page.goto(`${t.url}/status/acme`))?.status()).toBe(200);
      const services = page.locator('section[aria-labelledby="services"]');
      expect(await services.locator('h3, h4').allTextContents()).toEqual(['Acme Web', 'Backend', 'Acme Billing', 'Acme API', 'Acme Auth']);
      const group = services.locator('li.group', { has: page.locator('h3', { hasText: 'Backend' }) });
      expect(await group.locator('h4').allTextContents()).toEqual(['Acme Billing', 'Acme API']);
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lets a page of another origin read every document, a revalidation with If-None-Match too (a preflighted request)', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(elsewhereUrl);
      const base = `${t.url}/status/acme/api/v2/`;
      const read = await page.evaluate(
        async ({ base, endpoints }) => {
          const answers: { endpoint: string; status: number; name: string }[] = [];
          for (const endpoint of endpoints) {
            const res = await fetch(base + endpoint);
            const body = await res.json();
            answers.push({ endpoint, status: res.status, name: body.page.name });
          }
          // If-None-Match is no header a simple request may carry: the browser asks with OPTIONS first.
          // The ETag is readable from another origin only when exposed.
          const first = await fetch(`${base}summary.json`);
          const etag = first.headers.get('etag') ?? '';
          const again = await fetch(`${base}summary.json`, { headers: { 'If-None-Match': etag } });
          return { answers, etag, revalidated: again.status };
        },
        { base, endpoints: [...STATUSPAGE_ENDPOINTS] },
      );
      expect(read.answers).toEqual(STATUSPAGE_ENDPOINTS.map((endpoint) => ({ endpoint, status: 200, name: 'Acme status' })));
      expect(read.etag).not.toBe('');
      // fetch() answers a 304 it did not ask for itself as the cached 200.
      expect([200, 304]).toContain(read.revalidated);
    } finally {
      await context.close();
    }
  });
});
