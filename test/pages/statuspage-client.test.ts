import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FinishedRequest } from '../../src/http/request-trace.js';
import { STATUSPAGE_API_CONFIG, STATUSPAGE_ENDPOINTS } from '../helpers/pages.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

import { Statuspage } from 'statuspage.io';

/*
 * A Statuspage client library, written for Atlassian's pages (statuspage.io,
 * a development dependency), reads a statusbot page at the root of the
 * page's own host.
 */

/** A port free now, so that the page's own url can name it before the server starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Clients hand back the document, or a response object holding it as `data`, depending on their version. */
const documentOf = (answer: any) => (answer && answer.page === undefined && answer.data !== undefined ? answer.data : answer);

describe('a Statuspage client library pointed at the page’s own host', () => {
  let t: TestServer;
  let pageUrl: string;
  const asked: FinishedRequest[] = [];

  beforeAll(async () => {
    const port = await freePort();
    // The page's own host is this server's address: what the library asks reaches it with that Host, as through a proxy.
    pageUrl = `http://127.0.0.1:${port}`;
    t = await startTestServer({
      port,
      config: STATUSPAGE_API_CONFIG.replace('url: https://status.acme.example', `url: ${pageUrl}`),
      onRequestFinished: (finished) => asked.push(finished),
    });
    const opened = await t.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Slow API', description: 'Requests are slow.', status: 'minor' },
    });
    expect(opened.status).toBe(201);
    const now = t.clock.now().getTime();
    await t.ctx.write((trx) =>
      trx
        .insertInto('maintenance_windows')
        .values([
          { service_id: 1002, starts_at: now - 3_600_000, ends_at: now + 3_600_000 },
          { service_id: 1004, starts_at: now + 86_400_000, ends_at: now + 90_000_000 },
        ])
        .execute(),
    );
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('reads every document of the page', async () => {
    const statuspage: any = new Statuspage(pageUrl);
    // Versions that take only a page id reach other hosts through setApiUrl.
    statuspage.setApiUrl(pageUrl);
    asked.length = 0;

    const summary = documentOf(await statuspage.api.getSummary());
    expect(summary.page).toMatchObject({ name: 'Acme status', url: pageUrl });
    expect(summary.status).toEqual({ indicator: 'minor', description: 'Minor Service Outage' });
    expect(summary.components.map((c: any) => c.name)).toEqual(['Acme Web', 'Backend', 'Acme Billing', 'Acme API', 'Acme Auth']);
    expect(summary.incidents.map((i: any) => i.name)).toEqual(['Slow API']);

    expect(documentOf(await statuspage.api.getStatus()).status.indicator).toBe('minor');
    const components = documentOf(await statuspage.api.getComponents()).components;
    expect(components.find((c: any) => c.name === 'Acme API')).toMatchObject({ status: 'degraded_performance', group_id: components[1].id });
    expect(components.find((c: any) => c.name === 'Acme Web').status).toBe('under_maintenance');

    expect(documentOf(await statuspage.api.incidents.getAll()).incidents.map((i: any) => i.name)).toEqual(['Slow API']);
    expect(documentOf(await statuspage.api.incidents.getUnresolved()).incidents.map((i: any) => i.status)).toEqual(['investigating']);

    for (const read of ['getAll', 'getUpcoming', 'getActive']) {
      const maintenances = documentOf(await statuspage.api.scheduledMaintenances[read]()).scheduled_maintenances;
      expect(maintenances.length, read).toBeGreaterThan(0);
      for (const m of maintenances) expect(['scheduled', 'in_progress', 'completed']).toContain(m.status);
    }

    // Everything it asked was a Statuspage document at the host root, and answered.
    const paths = asked.map((a) => a.path);
    expect(paths.length).toBeGreaterThanOrEqual(STATUSPAGE_ENDPOINTS.length);
    for (const a of asked) {
      expect(STATUSPAGE_ENDPOINTS.map((e) => `/api/v2/${e}`)).toContain(a.path);
      expect(a.status, a.path).toBe(200);
    }
    for (const endpoint of ['summary.json', 'status.json', 'components.json', 'incidents.json', 'incidents/unresolved.json']) {
      expect(paths).toContain(`/api/v2/${endpoint}`);
    }
  });
});
