import { afterEach, expect, it } from 'vitest';
import { pageView } from '../../src/domain/read/pages/page-view.js';
import type { StatusReader } from '../../src/domain/read/pages/page-view.js';
import { statusesOf } from '../../src/domain/services/service-status.js';
import { PAGES_CONFIG } from '../helpers/pages.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
afterEach(async () => {
  await s?.stop();
});

/** The status read, counting its calls and the services each asked for. */
function countingReader(): { read: StatusReader; calls: number[][] } {
  const calls: number[][] = [];
  return {
    calls,
    read: (db, ids, now) => {
      calls.push([...ids]);
      return statusesOf(db, ids, now);
    },
  };
}

// The status page is served on a hot path: its services' statuses are read once per render, for its own services and its vendors together.
it('reads the statuses of a status page once per render, and states every part from that read', async () => {
  s = await startTestServer({ config: PAGES_CONFIG });
  const opened = await s.api('POST', '/api/v2/incidents', { key: ACME_KEY, body: { service_id: 1001, title: 'Errors', status: 'major' } });
  expect(opened.status).toBe(201);

  const counting = countingReader();
  const view = await pageView(s.ctx, 'acme', counting.read);

  expect(counting.calls).toHaveLength(1);
  const vendor = await s.ctx.db.selectFrom('services').select('id').where('urlname', '=', 'demo-service-major').executeTakeFirstOrThrow();
  expect([...counting.calls[0]!].sort((a, b) => a - b)).toEqual([1001, 1002, vendor.id]);
  expect(view.services.map((v) => [v.urlname, v.status])).toEqual([
    ['acme-api', 'major'],
    ['acme-web', 'ok'],
  ]);
  expect(view.vendors.map((v) => [v.urlname, v.status])).toEqual([['demo-service-major', 'major']]);
  expect(view.health.status).toBe('major');
  // The same page as a render without the counter reads it.
  expect(await pageView(s.ctx, 'acme')).toEqual(view);
});
