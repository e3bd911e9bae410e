import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GLOBEX_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});
beforeEach(() => {
  s.clock.set(T0);
});

const HOUR = 3_600_000;
const at = (hoursFromT0: number) => new Date(Date.parse(T0) + hoursFromT0 * HOUR).toISOString();

async function schedule(body: Record<string, unknown> = {}, key?: string) {
  const res = await s.api('POST', '/api/v2/maintenances', {
    key,
    body: { title: 'Database upgrade', description: 'Postgres 17.', service_ids: [1001], starts_at: at(1), ends_at: at(2), ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

describe('POST /api/v2/maintenances', () => {
  it('schedules a maintenance, answering its whole shape with one update', async () => {
    const res = await s.api('POST', '/api/v2/maintenances', {
      body: { title: 'Database upgrade', description: 'Postgres 17.', service_ids: [1002, 1001], starts_at: at(1), ends_at: '2026-11-22T13:02:00+01:00' },
    });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(res.headers.get('location')).toBe(`/api/v2/maintenances/${data.id}`);
    expect(data.id).toMatch(/^[1-9][0-9]*$/);
    expect(data.type).toBe('maintenance');
    expect(data.attributes).toEqual({
      title: 'Database upgrade',
      description: 'Postgres 17.',
      status: 'scheduled',
      starts_at: at(1),
      ends_at: at(2),
      service_ids: [1001, 1002],
      services: ['Acme API', 'Acme Web'],
      created_at: T0,
      updated_at: T0,
      updates: [{ status: 'scheduled', created_at: T0, description: 'Postgres 17.' }],
      tracker_url: `http://status.test/maintenances/${data.id}`,
    });
  });

  it('refuses a bad body with 422 naming the field, and schedules nothing', async () => {
    const before = (await s.api('GET', '/api/v2/maintenances')).body.data.length;
    for (const [body, field] of [
      [{ service_ids: [1001], starts_at: at(1), ends_at: at(2) }, 'title'],
      [{ title: ' ', service_ids: [1001], starts_at: at(1), ends_at: at(2) }, 'title'],
      [{ title: 'x', service_ids: [], starts_at: at(1), ends_at: at(2) }, 'service_ids'],
      [{ title: 'x', service_ids: ['1001'], starts_at: at(1), ends_at: at(2) }, 'service_ids[0]'],
      [{ title: 'x', service_ids: [1001], starts_at: 'tomorrow', ends_at: at(2) }, 'starts_at'],
      [{ title: 'x', service_ids: [1001], starts_at: at(2), ends_at: at(1) }, 'ends_at'],
      [{ title: 'x', service_ids: [1001], starts_at: at(2), ends_at: at(2) }, 'ends_at'],
      [{ title: 'x', service_ids: [1001], starts_at: at(1), ends_at: at(2), monitors: [] }, 'monitors'],
    ] as const) {
      const res = await s.api('POST', '/api/v2/maintenances', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors[0].title).toBe('Unprocessable entity');
      expect(res.body.errors[0].detail).toContain(field);
    }
    expect((await s.api('GET', '/api/v2/maintenances')).body.data).toHaveLength(before);
  });

  it("answers 404 for another company's service, or a catalog one, and schedules nothing", async () => {
    const before = (await s.api('GET', '/api/v2/maintenances')).body.data.length;
    for (const ids of [[2001], [1001, 2001], [999_999]]) {
      const res = await s.api('POST', '/api/v2/maintenances', { body: { title: 'x', service_ids: ids, starts_at: at(1), ends_at: at(2) } });
      expect(res.status).toBe(404);
      expect(res.body.errors[0].title).toBe('Resource not found');
    }
    expect((await s.api('GET', '/api/v2/maintenances')).body.data).toHaveLength(before);
  });
});

describe('GET /api/v2/maintenances', () => {
  it("lists the company's own: upcoming and in progress first, then those of the last 30 days", async () => {
    const company = await startTestServer();
    try {
      const post = async (title: string, from: number, to: number) => {
        const res = await company.api('POST', '/api/v2/maintenances', { body: { title, service_ids: [1001], starts_at: at(from), ends_at: at(to) } });
        expect(res.status, res.text).toBe(201);
        return res.body.data.id as string;
      };
      const old = await post('Long ago', -24 * 40, -24 * 40 + 1);
      const past = await post('Last week', -24 * 7, -24 * 7 + 1);
      const later = await post('Next week', 24 * 7, 24 * 7 + 1);
      const soon = await post('Tomorrow', 24, 25);
      const now = await post('Right now', -1, 1);
      const cancelled = await post('Called off', 48, 49);
      expect((await company.api('PATCH', `/api/v2/maintenances/${cancelled}`, { body: { status: 'cancelled', description: 'Not needed.' } })).status).toBe(200);
      const other = await company.api('POST', '/api/v2/maintenances', {
        key: GLOBEX_KEY,
        body: { title: 'Globex work', service_ids: [2001], starts_at: at(1), ends_at: at(2) },
      });
      expect(other.status).toBe(201);

      const list = (await company.api('GET', '/api/v2/maintenances')).body.data;
      expect(list.map((m: { id: string }) => m.id)).toEqual([now, soon, later, cancelled, past]);
      expect(list.map((m: { attributes: { status: string } }) => m.attributes.status)).toEqual([
        'in_progress',
        'scheduled',
        'scheduled',
        'cancelled',
        'completed',
      ]);
      expect(list.map((m: { id: string }) => m.id)).not.toContain(old);
    } finally {
      await company.stop();
    }
  });
});

describe('GET, PATCH and DELETE /api/v2/maintenances/{id}', () => {
  it('reads one, and hides those of another company behind a 404', async () => {
    const m = await schedule();
    expect((await s.api('GET', `/api/v2/maintenances/${m.id}`)).body.data).toEqual(m);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { title: 'Mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await s.api(method, `/api/v2/maintenances/${m.id}`, { key: GLOBEX_KEY, body });
      expect(res.status, method).toBe(404);
    }
    expect((await s.api('GET', '/api/v2/maintenances/999999')).status).toBe(404);
    expect((await s.api('GET', '/api/v2/maintenances/abc')).status).toBe(404);
    expect((await s.api('GET', `/api/v2/maintenances/${m.id}`)).body.data.attributes.title).toBe('Database upgrade');
  });

  it('changes title, text and times without adding an update', async () => {
    const m = await schedule();
    s.clock.set(at(0.5));
    const res = await s.api('PATCH', `/api/v2/maintenances/${m.id}`, {
      body: { title: 'Database upgrade, part 1', description: 'Postgres 17, then a vacuum.', starts_at: at(3), ends_at: at(5) },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.attributes).toMatchObject({
      title: 'Database upgrade, part 1',
      description: 'Postgres 17, then a vacuum.',
      status: 'scheduled',
      starts_at: at(3),
      ends_at: at(5),
      updated_at: at(0.5),
      updates: [{ status: 'scheduled', created_at: T0, description: 'Postgres 17.' }],
    });
  });

  it('cancels or completes with a status and a description, which adds an update; an ended one stays ended', async () => {
    const m = await schedule();
    s.clock.set(at(0.5));
    const cancelled = await s.api('PATCH', `/api/v2/maintenances/${m.id}`, { body: { status: 'cancelled', description: 'Postponed to next week.' } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data.attributes.status).toBe('cancelled');
    expect(cancelled.body.data.attributes.updates).toEqual([
      { status: 'scheduled', created_at: T0, description: 'Postgres 17.' },
      { status: 'cancelled', created_at: at(0.5), description: 'Postponed to next week.' },
    ]);
    for (const body of [{ status: 'completed', description: 'Done.' }, { starts_at: at(3) }]) {
      const res = await s.api('PATCH', `/api/v2/maintenances/${m.id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await s.api('GET', `/api/v2/maintenances/${m.id}`)).body.data.attributes.updates).toHaveLength(2);
  });

  it('refuses a bad change with 422, changing nothing', async () => {
    const m = await schedule();
    for (const body of [
      { status: 'in_progress' },
      { status: 'cancelled', title: 'x' },
      { ends_at: at(0.5) },
      { title: '' },
      { starts_at: 'soon' },
      { colour: 'red' },
    ]) {
      const res = await s.api('PATCH', `/api/v2/maintenances/${m.id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors[0].detail.length).toBeGreaterThan(0);
    }
    expect((await s.api('GET', `/api/v2/maintenances/${m.id}`)).body.data).toEqual(m);
  });

  it('deletes one: 204, then 404', async () => {
    const m = await schedule();
    const res = await s.api('DELETE', `/api/v2/maintenances/${m.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await s.api('GET', `/api/v2/maintenances/${m.id}`)).status).toBe(404);
    expect((await s.api('DELETE', `/api/v2/maintenances/${m.id}`)).status).toBe(404);
  });
});

describe('service status', () => {
  it('is maintenance while one is under way, and ok again once completed early', async () => {
    const company = await startTestServer();
    try {
      const res = await company.api('POST', '/api/v2/maintenances', { body: { title: 'Swap disks', service_ids: [1002], starts_at: at(1), ends_at: at(2) } });
      const status = async () => (await company.api('GET', '/api/v2/services/acme-web')).body.data.attributes.status;
      expect(await status()).toBe('ok');
      company.clock.set(at(1));
      expect(await status()).toBe('maintenance');
      expect((await company.api('GET', '/api/v2/services/acme-api')).body.data.attributes.status).toBe('ok');
      const done = await company.api('PATCH', `/api/v2/maintenances/${res.body.data.id}`, { body: { status: 'completed', description: 'Finished early.' } });
      expect(done.body.data.attributes.status).toBe('completed');
      expect(await status()).toBe('ok');
    } finally {
      await company.stop();
    }
  });
});
