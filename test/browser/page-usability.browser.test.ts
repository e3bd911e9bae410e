import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runningClock } from '../../src/domain/clock.js';
import { createProbeRollup } from '../../src/domain/monitors/probe-rollup.js';
import { describeWithBrowser, launchBrowser, recordRequests, seriousViolations } from '../helpers/browser.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const DAY_MS = 86_400_000;
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 900 };
const POLL = { interval: 20 };

/** A page with several services and monitors (90 days of bars each), and a page that shows nothing yet. */
const CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Public API, urlname: api }
      - { id: 1002, name: Dashboard, urlname: dashboard }
      - { id: 1003, name: Webhooks, urlname: webhooks }
      - { id: 1004, name: Email delivery, urlname: email }
      - { id: 1005, name: Search, urlname: search }
      - { id: 1006, name: Billing, urlname: billing }
    custom_monitors:
      - { id: 501, name: Checkout probe, url: "http://127.0.0.1:9/health", probe_type: ping, interval_seconds: 60 }
      - { id: 502, name: Login probe, url: "http://127.0.0.1:9/login", probe_type: ping, interval_seconds: 60 }
    status_pages:
      - name: Acme status
        slug: acme
        services: [api, dashboard, webhooks, email, search, billing]
        monitors: [501, 502]
      - name: Acme soon
        slug: soon
`;

// The pages show the same rows on either engine, and the HTTP tests run on both: a second browser run would add time, not coverage.
const describeInBrowser = process.env.STATUSBOT_TEST_ENGINE === 'postgres' ? describe.skip : describeWithBrowser;

describeInBrowser('status page usability in Chromium', () => {
  let browser: Browser;
  let t: TestServer;
  let incidentId: number;
  let opened: { context: BrowserContext; requests: string[] }[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    // Services shown 100 days before T0: every day of their bars has data.
    t = await startTestServer({ config: CONFIG, clock: runningClock(Date.parse(T0) - 100 * DAY_MS) });
    t.clock.set(Date.parse(T0) - 2 * DAY_MS);
    const created = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1003, title: 'Webhooks delayed', description: 'Deliveries are late.', status: 'major' },
    });
    expect(created.status).toBe(201);
    incidentId = created.body.data.id;
    t.clock.advance(95 * 60_000);
    const resolved = await t.api('PATCH', `/api/v2/incidents/${incidentId}`, { body: { resolution_stage: 'resolved', description: 'Caught up.' } });
    expect(resolved.status).toBe(200);
    t.clock.set(T0);
    // Two regions probed the checkout: its page splits by region.
    for (const [region, ms] of [
      ['eu', 120],
      ['hq', 40],
    ] as const) {
      const rollup = createProbeRollup(t.ctx, region);
      rollup.record(501, new Date(T0), ms, true);
      rollup.record(501, new Date(T0), ms, region === 'hq');
      await rollup.flush();
    }
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });
  afterEach(async () => {
    const all = opened;
    opened = [];
    await Promise.all(all.map((o) => o.context.close()));
    // The script and the stylesheet are statusbot's own: nothing from another host.
    const foreign = all.flatMap((o) => o.requests.filter((url) => new URL(url).origin !== new URL(t.url).origin));
    expect(foreign).toEqual([]);
  });

  async function open(options: BrowserContextOptions = {}, path = '/status/acme'): Promise<Page> {
    const context = await browser.newContext({ viewport: DESKTOP, ...options });
    opened.push({ context, requests: recordRequests(context) });
    const page = await context.newPage();
    const res = await page.goto(`${t.url}${path}`);
    expect(res?.status()).toBe(200);
    return page;
  }

  const focusedText = (page: Page) => page.evaluate<string>('document.activeElement?.textContent ?? ""');

  it('reaches the email field in few Tab presses: one stop per bar', async () => {
    const page = await open();
    // Wait for the script, which rewrites the times.
    await expect.poll(() => page.locator('time[title]').count(), POLL).toBeGreaterThan(0);
    let tabs = 0;
    while (!(await page.evaluate<boolean>('document.activeElement?.type === "email"'))) {
      tabs++;
      expect(tabs, 'Tab presses to the email field').toBeLessThan(40);
      await page.keyboard.press('Tab');
    }
    // 8 bars of 90 days on the page: they cost 8 presses, not 720.
    expect(await page.locator('ol.days').count()).toBe(8);
    expect(tabs).toBeLessThan(40);
  });

  it('offers a skip link first, shown on focus, that jumps to the main content', async () => {
    const page = await open();
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect((await skip.boundingBox())!.y + (await skip.boundingBox())!.height).toBeLessThanOrEqual(0);
    await page.keyboard.press('Tab');
    expect(await focusedText(page)).toBe('Skip to content');
    await expect.poll(async () => (await skip.boundingBox())!.y, POLL).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate<string>('document.activeElement?.id'), POLL).toBe('main');
    // The next Tab is inside the content: past the header's link home.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<boolean>('document.querySelector("main").contains(document.activeElement)')).toBe(true);
  });

  it('moves between the days of a bar with the arrow keys, Home and End, keeping one Tab stop', async () => {
    const page = await open();
    const bar = page.locator('ol.days').first();
    expect(await bar.getAttribute('aria-label')).toBe('Public API, the last 90 days');
    await bar.locator('li[tabindex="0"]').focus();
    expect(await focusedText(page)).toMatch(/^22 Nov 2026: no incidents/);
    await page.keyboard.press('ArrowLeft');
    expect(await focusedText(page)).toMatch(/^21 Nov 2026: /);
    await page.keyboard.press('Home');
    expect(await focusedText(page)).toMatch(/^25 Aug 2026: /);
    await page.keyboard.press('ArrowRight');
    expect(await focusedText(page)).toMatch(/^26 Aug 2026: /);
    // The day focused last is the bar's Tab stop now: Shift+Tab and Tab come back to it.
    expect(await bar.locator('li[tabindex="0"]').count()).toBe(1);
    expect(await bar.locator('li[tabindex="0"]').innerText()).toMatch(/^26 Aug 2026/);
    await page.keyboard.press('Tab');
    expect(await page.locator('ol.days').nth(1).locator('li:focus').count()).toBe(1);
    await page.keyboard.press('Shift+Tab');
    expect(await focusedText(page)).toMatch(/^26 Aug 2026: /);
    await page.keyboard.press('End');
    expect(await focusedText(page)).toMatch(/^22 Nov 2026: /);
    // The day of an incident names it, shown beside the cell.
    const webhooks = page.locator('ol.days').nth(2);
    await webhooks.locator('li[tabindex="0"]').focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect(await focusedText(page)).toMatch(/^20 Nov 2026: Major outage, .*Major: Webhooks delayed$/);
    expect((await webhooks.locator('li:focus p').boundingBox())!.width).toBeGreaterThan(100);
  });

  it('shows the last 30 days on a 360 px phone, cells at least 8 px wide, no sideways scroll', async () => {
    const page = await open({ viewport: PHONE, isMobile: true, hasTouch: true });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    for (const bar of await page.locator('ol.days').all()) {
      const widths = await bar.evaluate((ol) => Array.from(ol.children, (li) => li.getBoundingClientRect().width).filter((w) => w > 0));
      expect(widths).toHaveLength(30);
      expect(Math.min(...widths)).toBeGreaterThanOrEqual(8);
    }
    expect(await page.locator('.bar-legend').first().innerText()).toMatch(/^30 days ago/);
    // Arrow keys stay within the days shown.
    await page.locator('ol.days').first().locator('li[tabindex="0"]').focus();
    await page.keyboard.press('Home');
    expect(await focusedText(page)).toMatch(/^24 Oct 2026: /);
    const tip = (await page.locator('ol.days li:focus p').boundingBox())!;
    expect(tip.x).toBeGreaterThanOrEqual(0);
    expect(tip.x + tip.width).toBeLessThanOrEqual(PHONE.width);

    const wide = await open();
    expect(
      await wide
        .locator('ol.days')
        .first()
        .evaluate((ol) => Array.from(ol.children).filter((li) => li.getBoundingClientRect().width > 0).length),
    ).toBe(90);
  });

  it('names the status once on a filled banner, with a Subscribe link that jumps to the form', async () => {
    const page = await open();
    const banner = page.locator('.banner');
    expect(await banner.innerText()).toMatch(/^All systems operational\s+Subscribe$/);
    expect(await banner.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(26, 127, 55)');
    // The words and their mark in the page's background colour on the filled band, in light and dark alike.
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const [word, link, body] = await Promise.all([
        banner.locator('.status').evaluate((el) => getComputedStyle(el).color),
        banner.getByRole('link').evaluate((el) => getComputedStyle(el).color),
        page.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor),
      ]);
      expect([word, link], colorScheme).toEqual([body, body]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await banner.getByRole('link', { name: 'Subscribe' }).click();
    await page.waitForURL('**/status/acme#subscribe');
    const email = (await page.getByLabel('Email address').boundingBox())!;
    expect(email.y).toBeGreaterThanOrEqual(0);
    expect(email.y + email.height).toBeLessThanOrEqual(DESKTOP.height);
  });

  it('shows times in the reader’s time zone when the script runs, in UTC without it', async () => {
    const local = await open({ timezoneId: 'America/New_York' }, `/status/acme/incidents/${incidentId}`);
    const began = local.locator('h1 ~ p.muted time').first();
    // 20 Nov 2026, 10:02 UTC is 05:02 in New York (EST, UTC-5).
    await expect.poll(() => began.innerText(), POLL).toMatch(/^20 Nov 2026, 05:02 (EST|GMT-5)$/);
    expect(await began.getAttribute('title')).toBe('20 Nov 2026, 10:02 UTC');
    expect(await local.locator('h1 ~ p.muted').first().innerText()).toContain('lasted 1 h 35 min');

    // The monitor's hours stay the UTC hours their column names (the page loaded: its deferred script has run).
    const hours = await open({ timezoneId: 'America/New_York' }, '/status/acme/monitors/501');
    const hour = hours.locator('table.hours time').first();
    expect(await hour.innerText()).toBe('22 Nov 10:00');
    expect(await hour.getAttribute('title')).toBeNull();

    const utc = await open({ timezoneId: 'America/New_York', javaScriptEnabled: false }, `/status/acme/incidents/${incidentId}`);
    expect(await utc.locator('h1 ~ p.muted time').first().innerText()).toBe('20 Nov 2026, 10:02 UTC');
  });

  it('says plainly that an empty page shows nothing yet, with no date', async () => {
    const page = await open({}, '/status/soon');
    const main = await page.locator('main').innerText();
    expect(main).toContain('This page shows nothing yet');
    expect(main).not.toMatch(/operational|1970|Updated/i);
  });

  it('has no serious or critical accessibility violation (axe-core), light and dark, with the script running', async () => {
    const paths = [
      '/status/acme',
      `/status/acme/incidents/${incidentId}`,
      '/status/acme/history',
      '/status/soon',
      '/status/acme/monitors/501',
      '/status/acme/monitors/501?region=eu',
    ];
    for (const colorScheme of ['light', 'dark'] as const) {
      // axe is an inline script: this context alone bypasses the page's CSP.
      const page = await open({ colorScheme, bypassCSP: true });
      for (const path of paths) {
        await page.goto(`${t.url}${path}`);
        await page.locator('ol.days li[tabindex="0"], main').first().focus();
        expect(await seriousViolations(page), `${path} (${colorScheme})`).toEqual([]);
      }
    }
  });
});
