import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runningClock } from '../../src/domain/clock.js';
import { startFakeSmtp } from '../fakes/fake-smtp.js';
import type { FakeSmtp, ReceivedMail } from '../fakes/fake-smtp.js';
import { describeWithBrowser, launchBrowser, recordRequests, seriousViolations } from '../helpers/browser.js';
import { PAGES_CONFIG } from '../helpers/pages.js';
import { ACME_KEY, FAST_DELIVERY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const PUBLIC_URL = 'http://status.test';
const DAY_MS = 86_400_000;
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 900 };
const SCREENSHOTS = join(tmpdir(), 'statusbot-screenshots');
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/status-page.png', import.meta.url));
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Waits on states (a mail arriving, a style applying) with room for a busy machine. */
const POLL = { interval: 20 };

/** The README's picture: a page as a company would run it. */
const DOCS_CONFIG = `
public_url: https://status.acme.example
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Public API, urlname: api }
      - { id: 1002, name: Dashboard, urlname: dashboard }
      - { id: 1003, name: Webhooks, urlname: webhooks }
      - { id: 1004, name: Email delivery, urlname: email }
    status_pages:
      - name: Acme Cloud status
        slug: acme
        services: [api, dashboard, webhooks, email]
`;

/** A server whose services were put on their page 100 days before T0, so that every day of the bars has data. */
async function startWithHistory(config: string): Promise<TestServer> {
  const t = await startTestServer({ config, delivery: FAST_DELIVERY, clock: runningClock(Date.parse(T0) - 100 * DAY_MS) });
  t.clock.set(T0);
  return t;
}

/** An incident that began `daysAgo` before T0 and was resolved `hours` later; the clock is back at T0 after. */
async function pastIncident(t: TestServer, daysAgo: number, hours: number, body: Record<string, unknown>): Promise<void> {
  t.clock.set(Date.parse(T0) - daysAgo * DAY_MS);
  const created = await t.api('POST', '/api/v2/incidents', { body });
  expect(created.status).toBe(201);
  t.clock.advance(hours * 3_600_000);
  const resolved = await t.api('PATCH', `/api/v2/incidents/${created.body.data.id}`, {
    body: { resolution_stage: 'resolved', description: 'This incident has been resolved.' },
  });
  expect(resolved.status).toBe(200);
  t.clock.set(T0);
}

// The pages show the same rows on either engine, and the HTTP tests run on both: a second browser run would add time, not coverage.
const describeInBrowser = process.env.STATUSBOT_TEST_ENGINE === 'postgres' ? describe.skip : describeWithBrowser;

describeInBrowser('public status page in Chromium', () => {
  let browser: Browser;
  let smtp: FakeSmtp;
  let t: TestServer;
  /** The contexts a test opened, with every URL each asked for and the origins it may ask. */
  let opened: { context: BrowserContext; requests: string[]; origins: string[] }[] = [];

  beforeAll(async () => {
    [browser, smtp] = await Promise.all([launchBrowser(), startFakeSmtp()]);
    t = await startWithHistory(`${PAGES_CONFIG}smtp: { url: "${smtp.url}", from: "Acme status <status@acme.example>" }\n`);
    await pastIncident(t, 20, 3, { service_id: 1002, title: 'Slow logins', description: 'Sign-in takes up to a minute.', status: 'minor' });
    rmSync(SCREENSHOTS, { recursive: true, force: true });
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await smtp?.close();
  });
  afterEach(async () => {
    const all = opened;
    opened = [];
    await Promise.all(all.map((o) => o.context.close()));
    // Everything a page shows comes from statusbot itself: no font, script or image from another host.
    const foreign = all.flatMap((o) => o.requests.filter((url) => !o.origins.includes(new URL(url).origin)));
    expect(foreign).toEqual([]);
  });

  async function newContext(options: BrowserContextOptions = {}, origins = [new URL(t.url).origin]): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: DESKTOP, ...options });
    // Well below the test's timeout, so that a failure names the step that waited.
    opened.push({ context, requests: recordRequests(context), origins });
    return context;
  }

  /** A page in a fresh context (no cache, no cookies) at `path`. */
  async function open(options: BrowserContextOptions = {}, path = '/status/acme'): Promise<Page> {
    const page = await (await newContext(options)).newPage();
    const res = await page.goto(`${t.url}${path}`);
    expect(res?.status()).toBe(200);
    return page;
  }

  const serviceCard = (page: Page, name: string) => page.locator('section[aria-labelledby="services"] li.card', { has: page.locator('h3', { hasText: name }) });

  it('reads the status in words, a word beside each service, on a 360 px phone without horizontal scroll', async () => {
    const page = await open({ viewport: PHONE, isMobile: true, hasTouch: true });
    await expect.poll(() => page.locator('.banner').innerText(), POLL).toContain('All systems operational');

    const services = page.locator('section[aria-labelledby="services"] li.card');
    expect(await services.locator('h3').allInnerTexts()).toEqual(['Acme API', 'Acme Web']);
    for (const service of await services.all()) {
      // Status never by colour alone: a visible word beside the name.
      const word = service.locator('.row .status');
      expect(await word.isVisible()).toBe(true);
      expect(await word.innerText()).toBe('Operational');
    }
    expect(await page.locator('section[aria-labelledby="vendors"] .status').innerText()).toBe('Major outage');
    // Beside the banner, never counted in it: the vendor in trouble, and the monitor no probe has reached yet.
    const note = page.locator('.banner-block .banner-note');
    expect(await note.allInnerTexts()).toEqual(['No data yet (not probed): Checkout probe', 'Third-party: Demo Service (major outage) — Major outage']);
    const monitor = page.locator('section[aria-labelledby="monitors"] .row .status');
    expect(await monitor.innerText()).toBe('No data yet');
    // Its grey mark has a shape of its own (a ring), not a colour alone.
    expect(await monitor.evaluate((el) => getComputedStyle(el, '::before').borderTopStyle)).toBe('solid');
    // And so is every other status on the page (banner, monitors): never a colour without its word.
    for (const status of await page.locator('.status').all()) expect(await status.innerText()).toMatch(/\w{2,}/);

    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    for (const control of [page.getByLabel('Email address'), page.getByRole('button', { name: 'Subscribe' })]) {
      const box = (await control.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    }
    // Every day's text fits on the phone's screen when its cell has focus, and scrolls nothing sideways.
    const overflowing = await page.evaluate<{ day: string; left: number; right: number; scrollWidth: number }[]>(`
      [...document.querySelectorAll('ol.days li[tabindex]')].flatMap((cell) => {
        cell.focus();
        const box = cell.querySelector('p').getBoundingClientRect();
        const scrollWidth = document.documentElement.scrollWidth;
        return box.left < 0 || box.right > ${PHONE.width} || scrollWidth > ${PHONE.width}
          ? [{ day: cell.textContent.slice(0, 11), left: box.left, right: box.right, scrollWidth }]
          : [];
      })`);
    expect(overflowing).toEqual([]);
  });

  it('follows prefers-color-scheme: the background differs between light and dark (screenshots of both)', async () => {
    const backgrounds: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await open({ colorScheme });
      backgrounds.push(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor'));
      const file = join(SCREENSHOTS, `status-page-${colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: true });
      expect(readFileSync(file).subarray(0, 8)).toEqual(PNG_SIGNATURE);
    }
    expect(backgrounds).toEqual(['rgb(255, 255, 255)', 'rgb(13, 17, 23)']);
  });

  it('shows a day of the bar on keyboard focus, with JavaScript disabled: one Tab stop per bar, today', async () => {
    const page = await open({ javaScriptEnabled: false, viewport: PHONE });
    const bars = page.locator('ol.days');
    const today = bars.first().locator('li').last().locator('p');
    expect((await today.boundingBox())!.width).toBeLessThanOrEqual(1);
    // Tab from the top of the page, as a keyboard user does, to the first bar.
    for (let tabs = 0; (await page.locator('ol.days li:focus').count()) === 0; tabs++) {
      expect(tabs, 'a bar is reachable with Tab').toBeLessThan(10);
      await page.keyboard.press('Tab');
    }
    await expect.poll(async () => (await today.boundingBox())?.width ?? 0, POLL).toBeGreaterThan(100);
    expect(await today.innerText()).toMatch(/^22 Nov 2026\b/);
    const box = (await today.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);

    // The next Tab leaves the bar for the next one: one stop per bar, not one per day.
    await page.keyboard.press('Tab');
    await expect.poll(async () => (await today.boundingBox())?.width ?? 0, POLL).toBeLessThanOrEqual(1);
    expect(await page.evaluate<string>('document.activeElement.textContent')).toMatch(/^22 Nov 2026\b/);
    expect(await bars.nth(1).locator('li:focus').count()).toBe(1);

    // A day with an incident names it.
    const slow = page.locator('ol.days').nth(1).locator('li', { hasText: 'Slow logins' });
    await slow.focus();
    await expect.poll(() => slow.locator('p').innerText(), POLL).toMatch(/^2 Nov 2026\b[\s\S]*\bSlow logins$/);
  });

  it('subscribes by the form, confirms by the link from the mail, hears of an incident created through the API, and unsubscribes', async () => {
    // The mail links to the page's public address: the browser reaches it at the test server.
    const context = await newContext({ javaScriptEnabled: false }, [new URL(t.url).origin, PUBLIC_URL]);
    await context.route(`${PUBLIC_URL}/**`, async (route) => {
      // Fetched here and answered as if from the public host, so that the page's CSP ('self') holds as it would there.
      const response = await route.fetch({ url: route.request().url().replace(PUBLIC_URL, t.url), maxRedirects: 0 });
      await route.fulfill({ response });
    });
    const page = await context.newPage();
    await page.goto(`${t.url}/status/acme`);

    await page.getByLabel('Email address').fill('reader@example.com');
    await page.getByRole('checkbox', { name: 'Acme API' }).check();
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.waitForURL('**/status/acme/subscribe/check-inbox');
    expect(await page.locator('h1').innerText()).toBe('Check your inbox');

    const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));
    await expect.poll(() => mailsTo('reader@example.com').length, POLL).toBe(1);
    const confirmation = mailsTo('reader@example.com')[0]!;
    expect(confirmation.subject).toBe('Confirm your subscription to Acme status');
    await showMail(page, confirmation);
    await page.getByRole('link', { name: 'Confirm my subscription' }).click();
    await page.waitForURL(`${PUBLIC_URL}/status/acme/subscribe/confirm?token=*`);
    expect(await page.locator('h1').innerText()).toBe('Subscribed');
    expect(await page.locator('main').innerText()).toContain('reader@example.com will receive a mail from Acme status');

    const created = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Orders API unreachable', description: 'Requests to /v1/orders time out.', status: 'major' },
    });
    expect(created.status).toBe(201);
    await expect.poll(() => mailsTo('reader@example.com').length, POLL).toBe(2);
    const news = mailsTo('reader@example.com')[1]!;
    expect(news.subject).toBe('[Acme status] New incident - Acme API: Orders API unreachable');

    await showMail(page, news);
    await page.getByRole('link', { name: 'Details' }).click();
    await page.waitForURL(`${PUBLIC_URL}/status/acme/incidents/${created.body.data.id}`);
    expect(await page.locator('h1').innerText()).toBe('Orders API unreachable');

    await showMail(page, news);
    await page.getByRole('link', { name: 'Unsubscribe' }).click();
    await page.waitForURL(`${PUBLIC_URL}/status/acme/unsubscribe?token=*`);
    // Following the link alone changes nothing (mail scanners follow links): the page asks first.
    expect(await page.locator('h1').innerText()).toBe('Unsubscribe');
    expect(await page.locator('main').innerText()).toContain('Stop sending mail from Acme status to reader@example.com?');
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.waitForSelector('h1:text-is("Unsubscribed")');
    expect(await page.locator('main').innerText()).toContain('reader@example.com will receive no more mail from Acme status.');
  });

  it('shows an incident created through the API once the page is loaded again', async () => {
    const page = await open();
    const before = await page.locator('section[aria-labelledby="open"] article.card').count();
    const created = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1002, title: 'Dashboard charts missing', description: 'Charts show no data since 09:40 UTC.', status: 'minor' },
    });
    expect(created.status).toBe(201);

    await page.reload();
    const card = page.locator('section[aria-labelledby="open"] article.card', { hasText: 'Dashboard charts missing' });
    await card.waitFor();
    expect(await page.locator('section[aria-labelledby="open"] article.card').count()).toBe(before + 1);
    expect(await card.locator('.row .status').innerText()).toBe('Degraded');
    expect(await card.locator('.timeline').innerText()).toContain('Charts show no data since 09:40 UTC.');
    expect(await serviceCard(page, 'Acme Web').locator('.row .status').innerText()).toBe('Degraded');

    await card.getByRole('link', { name: 'Dashboard charts missing' }).click();
    await page.waitForURL(`**/status/acme/incidents/${created.body.data.id}`);
    expect(await page.locator('h1').innerText()).toBe('Dashboard charts missing');
    expect(await page.locator('.timeline').innerText()).toContain('Investigating');
  });

  it('has no serious or critical accessibility violation (axe-core), light and dark', async () => {
    const created = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Webhook delays', description: 'Webhooks arrive up to 5 minutes late.', status: 'minor' },
    });
    const paths = [
      '/status/acme',
      `/status/acme/incidents/${created.body.data.id}`,
      '/status/acme/history',
      '/status/acme/subscribe/check-inbox',
      '/status/acme/unsubscribe?token=not-a-token',
      '/status/nobody',
    ];
    // Only colours change in the dark: there contrast is all that is left to check, on the pages with the most colours.
    const runs = [
      { colorScheme: 'light' as const, paths, rules: undefined },
      { colorScheme: 'dark' as const, paths: paths.slice(0, 2), rules: ['color-contrast'] },
    ];
    for (const { colorScheme, paths, rules } of runs) {
      // axe is an inline script: this context alone bypasses the page's CSP.
      const page = await (await newContext({ colorScheme, bypassCSP: true })).newPage();
      for (const path of paths) {
        await page.goto(`${t.url}${path}`);
        expect(await seriousViolations(page, rules), `${path} (${colorScheme})`).toEqual([]);
      }
    }
  });

  // Run with STATUSBOT_DOCS_SCREENSHOT=1 to write the README's picture again.
  it.runIf(process.env.STATUSBOT_DOCS_SCREENSHOT === '1')('writes docs/status-page.png: light, 1280 wide, with an open incident', async () => {
    const docs = await startWithHistory(DOCS_CONFIG);
    try {
      await pastIncident(docs, 61, 2, { service_id: 1003, title: 'Webhooks not delivered', description: 'A queue stopped consuming.', status: 'major' });
      await pastIncident(docs, 34, 5, { service_id: 1002, title: 'Slow dashboard', description: 'Charts take long to load.', status: 'minor' });
      await pastIncident(docs, 3, 2, {
        service_id: 1004,
        title: 'Delayed password reset emails',
        description: 'Our mail provider queues outgoing mail.',
        status: 'minor',
      });
      docs.clock.set(Date.parse(T0) - 40 * 60_000);
      const open = await docs.api('POST', '/api/v2/incidents', {
        body: { service_id: 1001, title: 'Elevated error rate', description: 'About 8% of requests to /v1/orders fail with 502.', status: 'minor' },
      });
      docs.clock.set(T0);
      await docs.api('PATCH', `/api/v2/incidents/${open.body.data.id}`, {
        body: { resolution_stage: 'identified', description: 'A faulty load balancer node was taken out of rotation; errors are going down.' },
      });
      const context = await newContext({ colorScheme: 'light', viewport: { width: 1280, height: 800 } }, [new URL(docs.url).origin]);
      const page = await context.newPage();
      await page.goto(`${docs.url}/status/acme`);
      await page.locator('section[aria-labelledby="open"]').waitFor();
      mkdirSync(dirname(DOCS_SCREENSHOT), { recursive: true });
      await page.screenshot({ path: DOCS_SCREENSHOT, fullPage: true });
      expect(readFileSync(DOCS_SCREENSHOT).subarray(0, 8)).toEqual(PNG_SIGNATURE);
    } finally {
      await docs.stop();
    }
  });

  /** Shows a received mail's HTML part, as a mail reader would. */
  async function showMail(page: Page, mail: ReceivedMail): Promise<void> {
    expect(mail.html).not.toBeNull();
    await page.setContent(mail.html!);
  }
});
