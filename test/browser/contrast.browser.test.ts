import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProbeRollup } from '../../src/domain/monitors/probe-rollup.js';
import { describeWithBrowser, launchBrowser } from '../helpers/browser.js';
import { contrastFailures } from '../helpers/contrast.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const HOUR = 3_600_000;
const at = (hoursFromT0: number) => new Date(Date.parse(T0) + hoursFromT0 * HOUR).toISOString();

/** A page with a service of each kind a tracker page shows: vendors in each state, one never read, a custom one. */
const CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
services:
  - { urlname: unread, name: Unread Vendor, feed: { kind: statuspage, url: "http://127.0.0.1:9/unread" } }
  - { urlname: stale, name: Stale Vendor, feed: { kind: statuspage, url: "http://127.0.0.1:9/stale" } }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    custom_monitors:
      - { id: 501, name: Checkout probe, url: "http://127.0.0.1:9/health", probe_type: ping, interval_seconds: 60 }
    status_pages:
      - name: Acme status
        slug: acme
        services: [acme-api, acme-web]
        third_party: [demo-service-ok, demo-service-minor, demo-service-major, unread, stale]
        monitors: [501]
      - name: Acme soon
        slug: soon
`;

const SCHEMES = ['light', 'dark'] as const;

// The pages show the same rows on either engine, and the HTTP tests run on both: a second browser run would add time, not coverage.
const describeInBrowser = process.env.STATUSBOT_TEST_ENGINE === 'postgres' ? describe.skip : describeWithBrowser;

describeInBrowser('every text of the public pages stands out from its background (WCAG contrast), light and dark', () => {
  let browser: Browser;
  let t: TestServer;
  let maintenanceId: number;

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await startTestServer({ config: CONFIG });
    const res = await t.api('POST', '/api/v2/maintenances', {
      body: { title: 'Database upgrade', description: 'Writes pause.\nReads go on.', service_ids: [1001], starts_at: at(1), ends_at: at(2) },
    });
    expect(res.status, res.text).toBe(201);
    maintenanceId = res.body.data.id;
    // The checkout probed from two regions, one of them failing: its page has charts and a failure to show.
    for (const [region, up] of [
      ['eu', true],
      ['hq', false],
    ] as const) {
      const rollup = createProbeRollup(t.ctx, region);
      rollup.record(501, new Date(T0), 120, up);
      await rollup.flush();
    }
    // Stale Vendor was read once, long enough ago, and has failed since: its No data says since when.
    const db = t.ctx.db;
    const stale = await db.selectFrom('services').select('id').where('urlname', '=', 'stale').executeTakeFirstOrThrow();
    await db.deleteFrom('vendor_feeds').where('service_id', '=', stale.id).execute();
    const read = Date.parse(T0) - 10 * 60_000;
    await db
      .insertInto('vendor_feeds')
      .values({ service_id: stale.id, indicator: 'ok', last_checked_at: read, stale_at: read + 3 * 60_000, last_error: 'HTTP 503', failures: 4 })
      .execute();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  /** The contrast failures of each path, in each colour scheme, keyed `path (scheme)`. */
  async function failuresOf(paths: readonly string[]): Promise<Record<string, unknown>> {
    const found: Record<string, unknown> = {};
    for (const colorScheme of SCHEMES) {
      const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 900 } });
      try {
        const page: Page = await context.newPage();
        for (const path of paths) {
          const res = await page.goto(`${t.url}${path}`);
          expect(res?.status(), path).toBeLessThan(500);
          const failures = await contrastFailures(page);
          if (failures.length > 0) found[`${path} (${colorScheme})`] = failures;
        }
      } finally {
        await context.close();
      }
    }
    return found;
  }

  it('on a tracker page in each state: operational, degraded, major outage, under maintenance, no data (never read, failing since)', async () => {
    t.clock.set(at(1.5));
    const banners: string[] = [];
    const page = await browser.newPage();
    for (const urlname of ['demo-service-ok', 'demo-service-minor', 'demo-service-major', 'acme-api', 'unread', 'stale']) {
      await page.goto(`${t.url}/services/${urlname}`);
      banners.push((await page.locator('.banner').getAttribute('class')) ?? '');
    }
    // The last one's banner holds a time too, in the reader's zone.
    expect(await page.locator('.banner time').count()).toBe(1);
    await page.close();
    // Each state is the one meant: a check of the wrong page would prove nothing.
    expect(banners).toEqual(['banner ok', 'banner minor', 'banner major', 'banner maintenance', 'banner unknown', 'banner unknown']);
    expect(
      await failuresOf([
        '/services/demo-service-ok',
        '/services/demo-service-minor',
        '/services/demo-service-major',
        '/services/acme-api',
        '/services/unread',
        '/services/stale',
      ]),
    ).toEqual({});
  });

  it('on the status page and its pages, operational', async () => {
    t.clock.set(T0);
    const paths = [
      '/status/acme',
      '/status/acme/history',
      '/status/acme/subscribe/check-inbox',
      '/status/acme/unsubscribe?token=not-a-token',
      '/status/nobody',
      '/status/soon',
      '/status/acme/monitors/501',
      '/status/acme/monitors/501?region=eu',
    ];
    expect(await failuresOf(paths)).toEqual({});
  });

  it('on the status page with incidents open, then under maintenance', async () => {
    t.clock.set(T0);
    const minor = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1002, title: 'Slow logins', description: 'Sign-in takes up to a minute.', status: 'minor' },
    });
    expect(minor.status).toBe(201);
    expect(await failuresOf(['/status/acme', `/status/acme/incidents/${minor.body.data.id}`])).toEqual({});
    const major = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Orders API unreachable', description: 'Requests time out.', status: 'major' },
    });
    expect(major.status).toBe(201);
    expect(await failuresOf(['/status/acme', '/status/acme/history'])).toEqual({});

    for (const id of [minor.body.data.id, major.body.data.id]) {
      const resolved = await t.api('PATCH', `/api/v2/incidents/${id}`, { body: { resolution_stage: 'resolved', description: 'Fixed.' } });
      expect(resolved.status).toBe(200);
    }
    t.clock.set(at(1.5));
    expect(await failuresOf(['/status/acme', `/maintenances/${maintenanceId}`])).toEqual({});
  });
});
