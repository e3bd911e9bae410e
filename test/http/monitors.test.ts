import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GLOBEX_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
const now = new Date(T0).getTime();
const day = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  s = await startTestServer();
  // Monitor incidents come from probing; here they are written as the prober would.
  await s.ctx.db
    .insertInto('monitor_incidents')
    .values([
      {
        monitor_id: 501,
        description: 'Down in local: HTTP 503',
        resolved: 1,
        created_at: now - 2 * day,
        updated_at: now - 2 * day + 60_000,
        resolved_at: now - 2 * day + 60_000,
      },
      {
        monitor_id: 501,
        description: 'Down in local: connect ECONNREFUSED',
        resolved: 0,
        created_at: now - 3600_000,
        updated_at: now - 3600_000,
        resolved_at: null,
      },
      {
        monitor_id: 501,
        description: 'Down in local: HTTP 500',
        resolved: 1,
        created_at: now - 31 * day,
        updated_at: now - 31 * day,
        resolved_at: now - 31 * day,
      },
      { monitor_id: 601, description: 'Down in local: HTTP 502', resolved: 0, created_at: now - 60_000, updated_at: now - 60_000, resolved_at: null },
    ])
    .execute();
  await s.ctx.db.updateTable('custom_monitors').set({ status: 'down' }).where('id', '=', 501).execute();
});
afterAll(async () => {
  await s.stop();
});

describe('GET /api/v2/custom_monitors', () => {
  it("lists the company's monitors in the 2.5 shape with ongoing incidents (2.6 without custom_monitor_url)", async () => {
    const res = await s.api('GET', '/api/v2/custom_monitors');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    const [home, login] = res.body.data;
    expect(home).toEqual({
      id: '501',
      type: 'custom_monitor',
      attributes: {
        name: 'Homepage',
        status: 'down',
        url: 'http://127.0.0.1:9/health',
        probe_type: 'ping',
        created_at: T0,
        updated_at: T0,
        ongoing_incidents: {
          data: [
            {
              id: expect.stringMatching(/^\d+$/),
              type: 'custom_monitor_incident',
              attributes: {
                description: 'Down in local: connect ECONNREFUSED',
                created_at: iso(now - 3600_000),
                resolved_at: null,
                updated_at: iso(now - 3600_000),
                resolved: false,
              },
            },
          ],
        },
      },
    });
    expect(login.attributes).toMatchObject({ name: 'Login', status: 'ok', probe_type: 'keyword', ongoing_incidents: { data: [] } });
  });

  it('shows each company only its own monitors', async () => {
    const res = await s.api('GET', '/api/v2/custom_monitors', { key: GLOBEX_KEY });
    expect(res.body.data.map((m: { id: string }) => m.id)).toEqual(['601']);
  });
});

describe('GET /api/v2/custom_monitors/{custom_monitor_id}/incidents', () => {
  it('lists the last 30 days newest first, with custom_monitor_url', async () => {
    const res = await s.api('GET', '/api/v2/custom_monitors/501/incidents');
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { attributes: { description: string } }) => d.attributes.description)).toEqual([
      'Down in local: connect ECONNREFUSED',
      'Down in local: HTTP 503',
    ]);
    expect(res.body.data[1]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: 'custom_monitor_incident',
      attributes: {
        description: 'Down in local: HTTP 503',
        created_at: iso(now - 2 * day),
        resolved_at: iso(now - 2 * day + 60_000),
        updated_at: iso(now - 2 * day + 60_000),
        resolved: true,
        custom_monitor_url: 'http://127.0.0.1:9/health',
      },
    });
  });

  it("is 404 for another company's monitor, an unknown id and a non-integer id", async () => {
    expect((await s.api('GET', '/api/v2/custom_monitors/601/incidents')).status).toBe(404);
    expect((await s.api('GET', '/api/v2/custom_monitors/501/incidents', { key: GLOBEX_KEY })).status).toBe(404);
    expect((await s.api('GET', '/api/v2/custom_monitors/9999/incidents')).status).toBe(404);
    expect((await s.api('GET', '/api/v2/custom_monitors/abc/incidents')).status).toBe(404);
  });
});
