import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_BOARD, GLOBEX_BOARD, GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

const boardServicesRows = () =>
  s.ctx.db.selectFrom('board_services').select(['service_id', 'tags']).where('board_id', '=', ACME_BOARD).orderBy('position').execute();

describe('GET /api/v2/boards/{board_id}', () => {
  it('answers the 2.7 shape', async () => {
    const res = await s.api('GET', `/api/v2/boards/${ACME_BOARD}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id: ACME_BOARD,
        type: 'board',
        attributes: {
          name: 'Vendors',
          urlname: 'vendors',
          services: [{ name: 'Demo Service', urlname: 'demo-service', tags: ['core'] }],
        },
      },
    });
  });

  it("is 404 for another company's board, an unknown UUID and a malformed id", async () => {
    expect((await s.api('GET', `/api/v2/boards/${ACME_BOARD}`, { key: GLOBEX_KEY })).status).toBe(404);
    expect((await s.api('GET', `/api/v2/boards/${GLOBEX_BOARD}`)).status).toBe(404);
    expect((await s.api('GET', '/api/v2/boards/00000000-0000-4000-8000-0000000000ff')).status).toBe(404);
    expect((await s.api('GET', '/api/v2/boards/not-a-uuid')).status).toBe(404);
  });
});

describe('POST /api/v2/boards/{board_id}/services/{service_urlname}', () => {
  it('adds a service with normalised tags and answers the 2.2 shape with tags beside attributes', async () => {
    const res = await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/demo-service-major`, {
      body: { tags: ['  payments ', 'payments', '', '   ', 'eu', 'payments'] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(/^\d+$/),
        type: 'service',
        attributes: {
          name: 'Demo Service (major outage)',
          status: 'major',
          status_page_url: null,
          severity_from_provider: false,
          tracker_url: 'http://status.test/services/demo-service-major',
        },
        tags: ['payments', 'eu'],
      },
    });
    const board = await s.api('GET', `/api/v2/boards/${ACME_BOARD}`);
    expect(board.body.data.attributes.services.at(-1)).toEqual({
      name: 'Demo Service (major outage)',
      urlname: 'demo-service-major',
      tags: ['payments', 'eu'],
    });
  });

  it('adds without a body, with empty tags', async () => {
    const res = await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/acme-cloud`);
    expect(res.status).toBe(201);
    expect(res.body.data.tags).toEqual([]);
    expect(res.body.data.attributes.status_page_url).toBe('https://status.acme-cloud.example');
  });

  it("rejects a service already on the board with the spec's 422 and changes nothing", async () => {
    const before = await boardServicesRows();
    const res = await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/demo-service`, { body: { tags: ['new'] } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: [{ status: 422, title: 'Unprocessable entity', detail: 'Service already added to board' }] });
    expect(await boardServicesRows()).toEqual(before);
  });

  it("is 404 for an unknown service, a custom service, and another company's board", async () => {
    expect((await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/no-such`)).status).toBe(404);
    expect((await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/acme-api`)).status).toBe(404);
    expect((await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/demo-service-ok`, { key: GLOBEX_KEY })).status).toBe(404);
  });

  it('rejects bad tags with 422 naming the entry, and adds nothing', async () => {
    const before = await boardServicesRows();
    const cases: [unknown, string][] = [
      [{ tags: 'core' }, '/tags'],
      [{ tags: ['ok', 7] }, '/tags/1'],
      [{ tags: ['x'.repeat(65)] }, '/tags/0'],
      [{ tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, '/tags'],
      [{ tags: ['a'], colour: 'red' }, '/colour'],
    ];
    for (const [body, pointer] of cases) {
      const res = await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/demo-service-ok`, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ status: 422, title: 'Unprocessable entity', source: { pointer } });
    }
    expect(await boardServicesRows()).toEqual(before);
  });
});

describe('PATCH /api/v2/boards/{board_id}/services/{service_urlname}', () => {
  it('replaces the tags, normalised; without tags nothing changes; [] resets', async () => {
    const set = await s.api('PATCH', `/api/v2/boards/${ACME_BOARD}/services/demo-service`, { body: { tags: [' a', 'b ', 'a'] } });
    expect(set.status).toBe(200);
    expect(set.body.data.tags).toEqual(['a', 'b']);
    expect(set.body.data.attributes).toEqual({
      name: 'Demo Service',
      status: expect.stringMatching(/^(ok|minor|major)$/),
      status_page_url: null,
      severity_from_provider: false,
      tracker_url: 'http://status.test/services/demo-service',
    });
    const untouched = await s.api('PATCH', `/api/v2/boards/${ACME_BOARD}/services/demo-service`, { body: {} });
    expect(untouched.body.data.tags).toEqual(['a', 'b']);
    const noBody = await s.api('PATCH', `/api/v2/boards/${ACME_BOARD}/services/demo-service`);
    expect(noBody.body.data.tags).toEqual(['a', 'b']);
    const reset = await s.api('PATCH', `/api/v2/boards/${ACME_BOARD}/services/demo-service`, { body: { tags: [] } });
    expect(reset.body.data.tags).toEqual([]);
    const board = await s.api('GET', `/api/v2/boards/${ACME_BOARD}`);
    expect(board.body.data.attributes.services[0]).toEqual({ name: 'Demo Service', urlname: 'demo-service', tags: [] });
  });

  it('is 404 for a service not on the board and for another company', async () => {
    expect((await s.api('PATCH', `/api/v2/boards/${ACME_BOARD}/services/demo-service-minor`, { body: { tags: [] } })).status).toBe(404);
    expect((await s.api('PATCH', `/api/v2/boards/${ACME_BOARD}/services/demo-service`, { key: GLOBEX_KEY, body: { tags: [] } })).status).toBe(404);
  });

  it("puts a board's services among the free plan's monitored services", async () => {
    const free = await startTestServer({
      config: `
companies:
  - name: Solo
    plan: free
    api_keys: ["solo-key-1"]
    boards:
      - { id: 11111111-2222-4333-8444-555555555555, name: B, urlname: b }
`,
    });
    try {
      const path = '/api/v2/services/demo-service-major/incidents';
      expect((await free.api('GET', path, { key: 'solo-key-1' })).status).toBe(403);
      await free.api('POST', '/api/v2/boards/11111111-2222-4333-8444-555555555555/services/demo-service-major', { key: 'solo-key-1' });
      expect((await free.api('GET', path, { key: 'solo-key-1' })).status).toBe(200);
    } finally {
      await free.stop();
    }
  });
});
