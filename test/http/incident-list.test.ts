import { afterEach, describe, expect, it } from 'vitest';
import { STATUSPAGE_API_CONFIG } from '../helpers/pages.js';
import { GLOBEX_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

// Every answer of `s.api` is checked against the served API description (test/helpers/api-document.ts).

let s: TestServer;
afterEach(async () => {
  await s?.stop();
});

const MINUTE = 60_000;
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * MINUTE).toISOString();

async function open(body: Record<string, unknown>, key?: string): Promise<string> {
  const res = await s.api('POST', '/api/v2/incidents', { body, key });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as string;
}

async function list(query = '', key?: string) {
  const res = await s.api('GET', `/api/v2/incidents${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body as { data: any[]; links: { next: string | null } };
}

const titles = async (query = '', key?: string) => (await list(query, key)).data.map((i) => i.attributes.title);

describe('GET /api/v2/incidents', () => {
  it("lists the company's incidents on its custom services newest first, in the 2.3 shape with id, and no other company's", async () => {
    s = await startTestServer();
    const first = await open({ service_id: 1001, title: 'Logins fail', description: 'Looking.', status: 'major' });
    s.clock.set(at(1));
    await open({ service_id: 1002, title: 'Web slow' });
    s.clock.set(at(2));
    await open({ service_id: 1001, title: 'Fixed already', resolution_stage: 'resolved', description: 'Done.' });
    // Opened last, started earlier: the order is by creation time, not by id.
    s.clock.set(at(-60));
    await open({ service_id: 1002, title: 'Backfilled' });
    await open({ service_id: 2001, title: 'Globex down' }, GLOBEX_KEY);

    const page = await list();
    expect(page.data.map((i) => i.attributes.title)).toEqual(['Fixed already', 'Web slow', 'Logins fail', 'Backfilled']);
    expect(page.links).toEqual({ next: null });
    expect(page.data.at(2)).toEqual({
      id: first,
      type: 'incident',
      attributes: {
        // Its page on the service's status page, as its single view says.
        url: `https://status.acme.example/incidents/${first}`,
        title: 'Logins fail',
        description: 'Looking.',
        status: 'major',
        resolved: false,
        created_at: T0,
        resolved_at: null,
        service: 'Acme API',
        user_generated: false,
        components: [],
      },
    });
    expect(page.data[0].attributes).toMatchObject({ resolved: true, resolved_at: at(2) });
    expect(await titles('', GLOBEX_KEY)).toEqual(['Globex down']);
  });

  it('gives each incident the url its single view gives: its page on the linked status page', async () => {
    s = await startTestServer({ config: STATUSPAGE_API_CONFIG });
    const onPage = await open({ service_id: 1001, title: 'API down', status: 'major' });
    const single = async (id: string) => (await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes.url;
    expect(await single(onPage)).toBe(`https://status.acme.example/incidents/${onPage}`);
    expect((await list()).data.map((i) => [i.id, i.attributes.url])).toEqual([[onPage, await single(onPage)]]);
    // The service's list answers the same.
    const ofService = await s.api('GET', '/api/v2/services/acme-api/incidents');
    expect(ofService.status, ofService.text).toBe(200);
    expect(ofService.body.data.map((i: any) => [i.id, i.attributes.url])).toEqual([[onPage, await single(onPage)]]);
  });

  it('filters by resolved, service_id and since, together too, and shows a change at once', async () => {
    s = await startTestServer();
    await open({ service_id: 1001, title: 'A' });
    s.clock.set(at(1));
    const b = await open({ service_id: 1002, title: 'B' });
    s.clock.set(at(2));
    await open({ service_id: 1001, title: 'C', resolution_stage: 'resolved', description: 'Done.' });
    s.clock.set(at(3));

    expect(await titles('?resolved=false')).toEqual(['B', 'A']);
    expect(await titles('?resolved=true')).toEqual(['C']);
    expect(await titles('?service_id=1002')).toEqual(['B']);
    expect(await titles('?service_id=1001')).toEqual(['C', 'A']);
    expect(await titles(`?since=${at(1)}`)).toEqual(['C', 'B']);
    expect(await titles(`?since=${at(1).replace('.000Z', 'Z')}`)).toEqual(['C', 'B']);
    expect(await titles(`?since=${at(5)}`)).toEqual([]);
    expect(await titles(`?resolved=false&service_id=1001&since=${T0}`)).toEqual(['A']);

    const resolved = await s.api('PATCH', `/api/v2/incidents/${b}`, { body: { description: 'Back.', resolution_stage: 'resolved' } });
    expect(resolved.status).toBe(200);
    expect(await titles('?resolved=false')).toEqual(['A']);
    expect(await titles('?resolved=true')).toEqual(['C', 'B']);
    expect((await s.api('DELETE', `/api/v2/incidents/${b}`)).status).toBe(204);
    expect(await titles()).toEqual(['C', 'A']);
  });

  it('pages with limit and links.next through three pages, neither repeating nor skipping one while incidents are opened', async () => {
    s = await startTestServer();
    // The clock stands still: every incident has the same creation time, and the id orders them.
    const before: string[] = [];
    for (let n = 1; n <= 7; n++) before.unshift(await open({ service_id: n % 2 === 0 ? 1002 : 1001, title: `#${n}` }));
    await open({ service_id: 1001, title: 'resolved', resolution_stage: 'resolved', description: 'x' });

    const seen: string[] = [];
    const pages: string[][] = [];
    let next: string | null = '/api/v2/incidents?resolved=false&limit=3';
    while (next) {
      const res = await s.api('GET', next);
      expect(res.status, res.text).toBe(200);
      const ids = res.body.data.map((i: any) => i.id as string);
      pages.push(ids);
      seen.push(...ids);
      next = res.body.links.next;
      if (next) {
        expect(next).toMatch(/^\/api\/v2\/incidents\?resolved=false&limit=3&cursor=\d+_\d+$/);
        // Opened between two pages: one at the same time as the rest, one later.
        await open({ service_id: 1001, title: `between pages ${pages.length}` });
        s.clock.advance(MINUTE);
      }
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(seen).toEqual(before);
    expect(await titles('?resolved=false&limit=2')).toEqual(['between pages 2', 'between pages 1']);
  });

  it('refuses an invalid filter or page with 422 naming the parameter, and a service that is not a custom service of the company', async () => {
    s = await startTestServer();
    const catalog = await s.ctx.db.selectFrom('services').select('id').where('urlname', '=', 'demo-service-minor').executeTakeFirstOrThrow();
    const cases: [string, string, string][] = [
      ['resolved=maybe', 'resolved', 'resolved must be one of true, false'],
      ['limit=0', 'limit', 'limit must be at least 1'],
      ['limit=201', 'limit', 'limit must be at most 200'],
      ['limit=10000', 'limit', 'limit must be a number from 1 to 200'],
      ['limit=ten', 'limit', 'limit must be a number from 1 to 200'],
      ['cursor=abc', 'cursor', 'cursor must be the cursor of a links.next, such as 1795860120000_42'],
      ['cursor=12', 'cursor', 'cursor must be the cursor of a links.next, such as 1795860120000_42'],
      ['since=yesterday', 'since', 'since must be a time in ISO 8601 UTC, such as 2026-11-22T10:00:00.000Z'],
      ['since=2026-11-22', 'since', 'since must be a time in ISO 8601 UTC, such as 2026-11-22T10:00:00.000Z'],
      ['service_id=abc', 'service_id', 'service_id must be the id of a custom service of your company'],
      ['service_id=2001', 'service_id', 'service_id must be the id of a custom service of your company'],
      [`service_id=${catalog.id}`, 'service_id', 'service_id must be the id of a custom service of your company'],
      ['service_id=999999', 'service_id', 'service_id must be the id of a custom service of your company'],
    ];
    for (const [query, parameter, detail] of cases) {
      const res = await s.api('GET', `/api/v2/incidents?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.errors, query).toEqual([{ status: 422, title: 'Unprocessable entity', detail, source: { parameter } }]);
    }
    expect((await s.api('GET', '/api/v2/incidents', { key: null })).status).toBe(401);
    // Globex's own service is Globex's to filter on.
    expect((await s.api('GET', '/api/v2/incidents?service_id=2001', { key: GLOBEX_KEY })).status).toBe(200);
  });

  it('is described in the served API description with its filters and its page', async () => {
    s = await startTestServer();
    const doc = (await s.api('GET', '/api/v2/openapi.json', { key: null })).body;
    const op = doc.paths['/incidents'].get;
    expect(op.operationId).toBe('listIncidents');
    expect(op.parameters.map((p: any) => [p.name, p.in, p.required])).toEqual([
      ['resolved', 'query', false],
      ['service_id', 'query', false],
      ['since', 'query', false],
      ['limit', 'query', false],
      ['cursor', 'query', false],
    ]);
    expect(op.parameters[2].schema.format).toBe('date-time');
    expect(op.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/CompanyIncidentList');
    expect(Object.keys(op.responses).sort()).toEqual(['200', '401', '422', '429', '503']);
  });
});
