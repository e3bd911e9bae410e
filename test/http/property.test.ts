import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH } from '../../src/domain/validation.js';
import { ACME_BOARD, GLOBEX_BOARD, GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/**
 * Whatever is thrown at the API, it answers like the spec says it answers:
 * never a 5xx, errors in the section 7 shape with `status` equal to the HTTP
 * status, and successes with `data`.
 */

/** FC_RUNS=2000 for a longer hunt; 150 keeps the file well under 30 s. */
const RUNS = { numRuns: Number(process.env.FC_RUNS ?? 150) };

let s: TestServer;
let openIncident: string;
let resolvedIncident: string;
let globexIncident: string;
let thirdPartyIncident: string;

beforeAll(async () => {
  s = await startTestServer();
  const a = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Open one' } });
  const b = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: 'Done', resolution_stage: 'resolved', description: 'x' } });
  const c = await s.api('POST', '/api/v2/incidents', { key: GLOBEX_KEY, body: { service_id: 2001, title: 'Globex' } });
  const d = await s.api('GET', '/api/v2/services/demo-service-major/incidents');
  openIncident = a.body.data.id;
  resolvedIncident = b.body.data.id;
  globexIncident = c.body.data.id;
  thirdPartyIncident = d.body.data[0].id;
});
afterAll(async () => {
  await s?.stop();
});

type Res = { status: number; body: any; text: string; headers: Headers };

/** The invariants every answer keeps; the request is in the message of a failure. */
function expectWellFormed(what: string, res: Res): void {
  const where = `${what} -> ${res.status} ${res.text.slice(0, 500)}`;
  expect(res.status, where).toBeGreaterThanOrEqual(200);
  expect(res.status, where).toBeLessThan(500);
  if (res.status === 204) {
    expect(res.text, where).toBe('');
    return;
  }
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  expect(res.body, where).toBeTypeOf('object');
  if (res.status >= 200 && res.status < 300) {
    expect(res.body, where).toHaveProperty('data');
    return;
  }
  expect(Object.keys(res.body), where).toEqual(['errors']);
  expect(Array.isArray(res.body.errors), where).toBe(true);
  expect(res.body.errors.length, where).toBeGreaterThan(0);
  for (const e of res.body.errors) {
    expect(Number.isInteger(e.status), where).toBe(true);
    expect(e.status, where).toBe(res.status);
    expect(typeof e.title, where).toBe('string');
    expect(typeof e.detail, where).toBe('string');
  }
}

async function call(method: string, path: string, raw: string | undefined, contentType = 'application/json', key?: string): Promise<Res> {
  return s.api(method, path, {
    ...(key ? { key } : {}),
    ...(raw === undefined ? {} : { rawBody: raw }),
    headers: raw === undefined ? {} : { 'content-type': contentType },
  });
}

// ---------------------------------------------------------------------------
// Generators

/** Anything JSON.stringify turns into text (undefined sends no body). */
const anyBody = fc.anything().map((v) => JSON.stringify(v) as string | undefined);

/** Arrays or objects nested around the input depth limit (MAX_INPUT_DEPTH) and far beyond it. */
const nestedValue: fc.Arbitrary<unknown> = fc
  .tuple(fc.oneof(fc.integer({ min: MAX_INPUT_DEPTH - 3, max: MAX_INPUT_DEPTH + 3 }), fc.constant(2_000)), fc.boolean())
  .map(([depth, arrays]) => {
    let value: unknown = 'x';
    for (let i = 0; i < depth; i++) value = arrays ? [value] : { a: value };
    return value;
  });

/** Values of every JSON type, biased to the edges the schemas care about. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  nestedValue,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 53), 1e308, '', ' ', '\u0000', '1001', [], {}),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.array(fc.string(), { maxLength: 5 }),
  fc.jsonValue({ maxDepth: 2 }),
);

type Body = Record<string, unknown>;

/**
 * Bodies around a valid one: as is, with one known field set to any value, with
 * one dropped, with a stray key, or every known field random.
 */
function around(valid: fc.Arbitrary<Body>, fields: readonly string[]): fc.Arbitrary<Body> {
  const field = fc.constantFrom(...fields);
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 3, arbitrary: fc.tuple(valid, field, anyValue).map(([body, k, v]) => ({ ...body, [k]: v })) },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, field).map(([body, k]) => {
        const copy = { ...body };
        delete copy[k];
        return copy;
      }),
    },
    { weight: 1, arbitrary: fc.tuple(valid, fc.string({ maxLength: 10 }), anyValue).map(([body, k, v]) => ({ [k]: v, ...body })) },
    { weight: 1, arbitrary: fc.record(Object.fromEntries(fields.map((f) => [f, anyValue])), { requiredKeys: [] }) },
  );
}

const SEVERITIES = ['minor', 'major'] as const;
const STAGES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
const validTitle = fc.oneof(
  fc.string({ minLength: 1, maxLength: 255 }).filter((v) => v.trim() !== ''),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).filter((v) => v.trim() !== '' && v.length <= 255),
);
const validText = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 100 }));

/** POST /incidents bodies: the fields of 4.4 with good and bad values. */
const createBody = around(
  fc.record(
    {
      service_id: fc.constantFrom(1001, 1002),
      title: validTitle,
      status: fc.constantFrom(...SEVERITIES),
      description: validText,
      resolution_stage: fc.constantFrom(...STAGES),
    },
    { requiredKeys: ['service_id', 'title'] },
  ),
  ['service_id', 'title', 'status', 'description', 'resolution_stage'],
);

/** PATCH /incidents/:id bodies: the fields of 4.5, description and resolution_stage usually together. */
const updateBody = around(
  fc
    .tuple(
      fc.record({ title: validTitle, status: fc.constantFrom(...SEVERITIES) }, { requiredKeys: [] }),
      fc.option(fc.record({ description: validText, resolution_stage: fc.constantFrom(...STAGES) })),
    )
    .map(([a, b]) => ({ ...a, ...(b ?? {}) })),
  ['title', 'status', 'description', 'resolution_stage'],
);

/** Board-service bodies: `tags`, mostly a short list of strings, sometimes over the limits. */
const boardBody = around(
  fc.record(
    {
      tags: fc.oneof(
        { weight: 4, arbitrary: fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(' ', ' core ', 'core')), { maxLength: 10 }) },
        { weight: 1, arbitrary: fc.array(fc.string({ unit: 'grapheme', maxLength: 70 }), { maxLength: 60 }) },
      ),
    },
    { requiredKeys: [] },
  ),
  ['tags'],
);

const boardId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(ACME_BOARD, ACME_BOARD.toUpperCase()) },
  { weight: 1, arbitrary: fc.constantFrom(GLOBEX_BOARD, '00000000-0000-0000-0000-000000000000') },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.string() },
);
const serviceUrlname = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('demo-service', 'demo-service-ok', 'demo-service-minor', 'demo-service-major', 'acme-cloud') },
  { weight: 1, arbitrary: fc.constantFrom('acme-api', 'globex-api', 'nope', 'DEMO-SERVICE') },
  { weight: 1, arbitrary: fc.string() },
);

/** Printable header values, plus the JSON types the server accepts. */
const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/vnd.api+json',
    'application/problem+json',
    'text/plain',
    'text/json',
    'application/jsonx',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=----x',
    '*/*',
  ),
  fc.string({ minLength: 1, maxLength: 40 }).filter((v) => /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v)),
);

const rawText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }).map((v) => v.replace(/[\ud800-\udfff]/g, '')),
  fc.json(),
  anyBody.map((v) => v ?? ''),
);

/** A path segment as a client could send it: percent-encoded text, or raw URL characters (bad escapes included). */
const segment = fc.oneof(
  fc.string({ unit: 'grapheme' }).map(encodeURIComponent),
  fc.stringMatching(/^[A-Za-z0-9%._~!$&'()*+,;=:@-]{0,24}$/),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%2F', '%2e%2e', '..', '.', '1e3', '-1', '0', '007', '9'.repeat(20), '18446744073709551616'),
  // Bytes that are not UTF-8 text: broken, lone, overlong (NUL, '/'), a surrogate.
  fc.constantFrom('%C3%28', '%FF', '%C0%80', '%C0%AF', '%E0%80%AF', '%ED%A0%80', 'a%00b'),
  fc.nat().map(String),
  fc.uuid(),
);

const incidentId = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('open', 'resolved', 'globex', 'third-party') }, { weight: 1, arbitrary: segment });
const resolveId = (id: string) =>
  id === 'open' ? openIncident : id === 'resolved' ? resolvedIncident : id === 'globex' ? globexIncident : id === 'third-party' ? thirdPartyIncident : id;

// ---------------------------------------------------------------------------

describe('POST /api/v2/incidents', () => {
  it('fc.anything() as body', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, async (raw) => {
        expectWellFormed(`POST /incidents ${raw}`, await call('POST', '/api/v2/incidents', raw));
      }),
      RUNS,
    );
  });

  it('fc.json() as body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.json(), async (raw) => {
        expectWellFormed(`POST /incidents ${raw}`, await call('POST', '/api/v2/incidents', raw));
      }),
      RUNS,
    );
  });

  it('records of the known fields with random values; a 201 is an incident that can be read back', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(createBody, async (body) => {
        const raw = JSON.stringify(body);
        const res = await call('POST', '/api/v2/incidents', raw);
        expectWellFormed(`POST /incidents ${raw}`, res);
        seen.add(res.status);
        expect([201, 422], raw).toContain(res.status);
        if (res.status === 201) {
          expect(res.body.data.attributes, raw).toMatchObject({
            service_id: body.service_id,
            title: String(body.title).trim(),
            status: body.status ?? 'minor',
            description: body.description ?? '',
            resolved: body.resolution_stage === 'resolved',
            updates: [{ status: body.resolution_stage ?? 'investigating', description: body.description ?? '' }],
          });
          const got = await s.api('GET', `/api/v2/incidents/${res.body.data.id}`);
          expect(got.status).toBe(200);
          expect(got.body.data).toEqual(res.body.data);
        } else {
          for (const e of res.body.errors) expect(e.title).toBe('Unprocessable entity');
        }
      }),
      RUNS,
    );
    // The generator reaches both outcomes.
    expect([...seen].sort()).toEqual([201, 422]);
  });

  it('random raw strings with random content types', async () => {
    await fc.assert(
      fc.asyncProperty(rawText, contentType, async (raw, type) => {
        expectWellFormed(`POST /incidents [${type}] ${JSON.stringify(raw)}`, await call('POST', '/api/v2/incidents', raw, type));
      }),
      RUNS,
    );
  });
});

describe('PATCH /api/v2/incidents/:id', () => {
  it('fc.anything() and fc.json() as body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyBody, fc.json()), incidentId, async (raw, id) => {
        const path = `/api/v2/incidents/${resolveId(id)}`;
        expectWellFormed(`PATCH ${path} ${raw}`, await call('PATCH', path, raw));
      }),
      RUNS,
    );
  });

  it('records of the known fields with random values, on own, resolved, foreign and third-party incidents', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(updateBody, incidentId, async (body, id) => {
        const raw = JSON.stringify(body);
        const path = `/api/v2/incidents/${resolveId(id)}`;
        const res = await call('PATCH', path, raw);
        expectWellFormed(`PATCH ${path} ${raw}`, res);
        seen.add(res.status);
        if (res.status === 200) {
          expect(res.body.data.type).toBe('incidents');
          // An integer id; /incidents/007 addresses incident 7.
          expect(res.body.data.id).toBe(String(Number(resolveId(id))));
        }
      }),
      RUNS,
    );
    expect([...seen]).toEqual(expect.arrayContaining([200, 403, 404, 422]));
  });

  it('random raw strings with random content types', async () => {
    await fc.assert(
      fc.asyncProperty(rawText, contentType, async (raw, type) => {
        const path = `/api/v2/incidents/${openIncident}`;
        expectWellFormed(`PATCH ${path} [${type}] ${JSON.stringify(raw)}`, await call('PATCH', path, raw, type));
      }),
      RUNS,
    );
  });
});

describe('POST and PATCH /api/v2/boards/:board_id/services/:urlname', () => {
  for (const method of ['POST', 'PATCH']) {
    it(`${method}: random bodies, boards and urlnames`, async () => {
      const seen = new Set<number>();
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            { weight: 4, arbitrary: boardBody.map((b) => JSON.stringify(b) as string | undefined) },
            { weight: 1, arbitrary: anyBody },
            { weight: 1, arbitrary: fc.json() },
          ),
          boardId,
          serviceUrlname,
          async (raw, board, urlname) => {
            const path = `/api/v2/boards/${encodeURIComponent(board)}/services/${encodeURIComponent(urlname)}`;
            const res = await call(method, path, raw);
            expectWellFormed(`${method} ${path} ${raw}`, res);
            seen.add(res.status);
            if (res.status < 300) {
              expect(res.body.data.type).toBe('service');
              expect(Array.isArray(res.body.data.tags)).toBe(true);
            }
          },
        ),
        RUNS,
      );
      expect([...seen]).toEqual(expect.arrayContaining([method === 'POST' ? 201 : 200, 404, 422]));
    });

    it(`${method}: random raw strings with random content types`, async () => {
      await fc.assert(
        fc.asyncProperty(rawText, contentType, async (raw, type) => {
          const path = `/api/v2/boards/${ACME_BOARD}/services/demo-service`;
          expectWellFormed(`${method} ${path} [${type}] ${JSON.stringify(raw)}`, await call(method, path, raw, type));
        }),
        RUNS,
      );
    });
  }
});

/** Dot segments (`..`, `%2e%2e`) are resolved by the client: `/api/v2/../..` is a request for `/`, the home page, not the API. */
const staysInTheApi = (path: string) => new URL(path, 'http://statusbot.test').pathname.startsWith('/api/');

describe('GET endpoints with random path segments', () => {
  const templates: ((seg: string) => string)[] = [
    (x) => `/api/v2/services/${x}`,
    (x) => `/api/v2/services/${x}/incidents`,
    (x) => `/api/v2/incidents/${x}`,
    (x) => `/api/v2/custom_monitors/${x}/incidents`,
    (x) => `/api/v2/boards/${x}`,
    (x) => `/api/v2/${x}`,
    (x) => `/api/v2/${x}/${x}`,
  ];

  it('never a 5xx, always the error shape or data', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: templates.length - 1 }), segment, async (t, seg) => {
        const path = templates[t]!(seg);
        fc.pre(staysInTheApi(path));
        expectWellFormed(`GET ${path}`, await s.api('GET', path));
      }),
      RUNS,
    );
  });

  it('random query strings on the service incident list', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('demo-service', 'demo-service-major', 'acme-cloud', 'acme-api', 'globex-api'),
        fc.dictionary(fc.oneof(fc.constant('include_user_reports'), fc.string({ maxLength: 8 })), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
        async (name, query) => {
          const path = `/api/v2/services/${name}/incidents?${new URLSearchParams(query).toString()}`;
          const res = await s.api('GET', path);
          expectWellFormed(`GET ${path}`, res);
          if (res.status === 422) expect(res.body.errors[0].source).toEqual({ parameter: 'include_user_reports' });
        },
      ),
      RUNS,
    );
  });

  it("random filters and pages on the company's incident list", async () => {
    const names = ['resolved', 'service_id', 'since', 'limit', 'cursor'];
    const value = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('true', 'false', '1001', '2001', '0', '200', '201', '2026-11-22T10:00:00.000Z', '1795860120000_42'),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })), value, { maxKeys: 4 }), async (query) => {
        const path = `/api/v2/incidents?${new URLSearchParams(query).toString()}`;
        const res = await s.api('GET', path);
        expectWellFormed(`GET ${path}`, res);
        if (res.status === 422) for (const e of res.body.errors) expect(names).toContain(e.source.parameter);
        else expect(res.body.data.every((i: any) => i.id !== globexIncident)).toBe(true);
      }),
      RUNS,
    );
  });

  it('random methods on random API paths', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        fc.nat({ max: templates.length - 1 }),
        segment,
        async (method, t, seg) => {
          const path = templates[t]!(seg);
          fc.pre(staysInTheApi(path));
          const res = await s.api(method, path);
          expectWellFormed(`${method} ${path}`, res);
          if (res.status === 405) expect(res.headers.get('allow')).toMatch(/^[A-Z]+(, [A-Z]+)*$/);
        },
      ),
      RUNS,
    );
  });
});
