import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES_CONFIG, visibleText } from '../helpers/pages.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const HOUR = 3_600_000;
const at = (hoursFromT0: number) => new Date(Date.parse(T0) + hoursFromT0 * HOUR).toISOString();

describe('a maintenance on the public pages', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: PAGES_CONFIG });
  });
  afterAll(async () => {
    await t.stop();
  });

  const page = async (path: string) => {
    const res = await fetch(`${t.url}${path}`);
    return { status: res.status, text: visibleText(await res.text()) };
  };

  it('shows its title, text, window and services on the status page, then its services under maintenance while it runs', async () => {
    t.clock.set(T0);
    const res = await t.api('POST', '/api/v2/maintenances', {
      body: { title: 'Database upgrade', description: 'Writes pause for a minute.', service_ids: [1001], starts_at: at(1), ends_at: at(2) },
    });
    expect(res.status, res.text).toBe(201);
    const id = res.body.data.id;

    const before = await page('/status/acme');
    expect(before.text).toMatch(
      /Maintenance Database upgrade Scheduled 22 Nov 2026, 11:02 UTC – 22 Nov 2026, 12:02 UTC · Acme API Writes pause for a minute\./,
    );
    expect(before.text).toMatch(/Acme API Operational/);

    t.clock.set(at(1));
    const during = await page('/status/acme');
    expect(during.text).toMatch(/Database upgrade In progress/);
    expect(during.text).toMatch(/Acme API Under maintenance/);
    expect(during.text).toMatch(/Acme Web Operational/);

    const own = await page(`/maintenances/${id}`);
    expect(own.status).toBe(200);
    expect(own.text).toContain('← Acme status');
    expect(own.text).toMatch(/Database upgrade Scheduled · 22 Nov 2026, 11:02 UTC – 22 Nov 2026, 12:02 UTC Affects: Acme API Writes pause for a minute\./);
    expect(own.text).toContain('Updates Scheduled');

    const done = await t.api('PATCH', `/api/v2/maintenances/${id}`, { body: { status: 'completed', description: 'All done.' } });
    expect(done.status, done.text).toBe(200);
    const after = await page('/status/acme');
    expect(after.text).not.toContain('Database upgrade');
    expect(after.text).toMatch(/Acme API Operational/);
    const finished = await page(`/maintenances/${id}`);
    expect(finished.text).toMatch(/Database upgrade Completed/);
    expect(finished.text).toMatch(/Updates Completed .* All done\. Scheduled/);
  });

  it('has no page of its own while no status page shows one of its services', async () => {
    const res = await t.api('POST', '/api/v2/maintenances', { body: { title: 'Secret work', service_ids: [1003], starts_at: at(1), ends_at: at(2) } });
    expect(res.status, res.text).toBe(201);
    expect((await page(`/maintenances/${res.body.data.id}`)).status).toBe(404);
    expect((await page('/maintenances/999999')).status).toBe(404);
    expect((await page('/status/acme')).text).not.toContain('Secret work');
  });
});

describe('a maintenance window declared in the config', () => {
  it('still puts its catalog service in maintenance while under way', async () => {
    const t = await startTestServer({
      config: `
public_url: http://status.test
services:
  - urlname: acme-cloud
    name: Acme Cloud
    maintenance:
      - { starts_at: "${at(1)}", ends_at: "${at(2)}" }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
`,
    });
    try {
      const status = async () => (await t.api('GET', '/api/v2/services/acme-cloud')).body.data.attributes.status;
      expect(await status()).toBe('ok');
      t.clock.set(at(1.5));
      expect(await status()).toBe('maintenance');
      t.clock.set(at(2));
      expect(await status()).toBe('ok');
    } finally {
      await t.stop();
    }
  });
});
