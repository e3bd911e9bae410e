import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithBrowser, launchBrowser, seriousViolations } from '../helpers/browser.js';
import { PAGES_CONFIG } from '../helpers/pages.js';
import { T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const HOUR = 3_600_000;
const at = (hoursFromT0: number) => new Date(Date.parse(T0) + hoursFromT0 * HOUR).toISOString();

// The pages show the same rows on either engine, and the HTTP tests run on both: a second browser run would add time, not coverage.
const describeInBrowser = process.env.STATUSBOT_TEST_ENGINE === 'postgres' ? describe.skip : describeWithBrowser;

describeInBrowser('a maintenance in Chromium', () => {
  let browser: Browser;
  let t: TestServer;
  beforeAll(async () => {
    browser = await launchBrowser();
    t = await startTestServer({ config: PAGES_CONFIG });
  });
  afterAll(async () => {
    await t?.stop();
    await browser?.close();
  });

  it('reads the status page and its own page, scheduled and in progress, with no serious axe violation', async () => {
    const res = await t.api('POST', '/api/v2/maintenances', {
      body: { title: 'Database upgrade', description: 'Writes pause for a minute.\nReads go on.', service_ids: [1001], starts_at: at(1), ends_at: at(2) },
    });
    expect(res.status, res.text).toBe(201);
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    for (const when of [T0, at(1)]) {
      t.clock.set(when);
      for (const path of ['/status/acme', `/maintenances/${res.body.data.id}`]) {
        await page.goto(`${t.url}${path}`);
        const text = await page.locator('main, body').first().innerText();
        expect(text).toContain('Database upgrade');
        // Its line break is kept on both pages alike.
        expect(text).toContain('Writes pause for a minute.\nReads go on.');
        expect(await seriousViolations(page), `${path} at ${when}`).toEqual([]);
      }
    }
    await page.goto(`${t.url}/status/acme`);
    await page.getByRole('link', { name: 'Database upgrade' }).click();
    await page.waitForURL(`${t.url}/maintenances/${res.body.data.id}`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Database upgrade');
    await context.close();
  });
});
