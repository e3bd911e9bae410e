import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_BOARD, ACME_KEY, GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
let incidentId: string;
let before: Snapshot;

const UNAUTHORIZED = {
  errors: [{ status: 401, title: 'Unauthorized access', detail: 'You are not authorized to access this resource' }],
};
const NOT_FOUND = {
  errors: [{ status: 404, title: 'Resource not found', detail: 'The resource you are looking for does not exist' }],
};

type Snapshot = Record<string, unknown[]>;

/** Every row a request of the API could write. */
async function snapshot(server: TestServer): Promise<Snapshot> {
  const db = server.ctx.db;
  return {
    incidents: await db.selectFrom('incidents').selectAll().orderBy('id').execute(),
    incident_updates: await db.selectFrom('incident_updates').selectAll().orderBy('id').execute(),
    outbox: await db.selectFrom('outbox').selectAll().orderBy('id').execute(),
    board_services: await db.selectFrom('board_services').selectAll().orderBy('board_id').orderBy('service_id').execute(),
    status_page_services: await db.selectFrom('status_page_services').selectAll().orderBy('status_page_id').orderBy('service_id').execute(),
    api_keys: await db.selectFrom('api_keys').selectAll().orderBy('id').execute(),
  };
}

/** The error shape of section 7, with `status` equal to the HTTP status. */
function expectErrorShape(res: { status: number; body: any; text: string }, status: number) {
  expect(res.status, res.text).toBe(status);
  expect(Object.keys(res.body)).toEqual(['errors']);
  expect(res.body.errors.length).toBeGreaterThan(0);
  for (const e of res.body.errors) {
    expect(e.status).toBe(status);
    expect(typeof e.title).toBe('string');
    expect(typeof e.detail).toBe('string');
    expect(e.detail.length).toBeGreaterThan(0);
  }
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

/**
 * A request through node:http, so that the body can be streamed (chunked) and a
 * server that answers before it has read the whole body is still heard.
 */
function send(server: TestServer, method: string, path: string, headers: Record<string, string | number>, chunks: Buffer[]): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(`${server.url}${path}`, { method, headers }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    req.on('error', (e) => {
      // The server may close the connection while the rest of a refused body is on its way.
      if (!answered) reject(e);
    });
    (async () => {
      for (const chunk of chunks) {
        if (answered) break;
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    })().catch(() => {});
  });
}

beforeAll(async () => {
  s = await startTestServer();
  const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Existing' } });
  expect(created.status, created.text).toBe(201);
  incidentId = created.body.data.id;
  before = await snapshot(s);
});
afterAll(async () => {
  await s?.stop();
});

describe('401 Unauthorized', () => {
  const endpoints: [string, () => string, unknown?][] = [
    ['GET', () => '/api/v2/services'],
    ['GET', () => '/api/v2/services/demo-service/incidents'],
    ['GET', () => '/api/v2/incidents'],
    ['GET', () => `/api/v2/incidents/${incidentId}`],
    ['POST', () => '/api/v2/incidents', { service_id: 1001, title: 'Sneaky' }],
    ['PATCH', () => `/api/v2/incidents/${incidentId}`, { title: 'Sneaky' }],
    ['DELETE', () => `/api/v2/incidents/${incidentId}`],
    ['GET', () => '/api/v2/custom_monitors'],
    ['GET', () => '/api/v2/custom_monitors/501/incidents'],
    ['GET', () => `/api/v2/boards/${ACME_BOARD}`],
    ['POST', () => `/api/v2/boards/${ACME_BOARD}/services/demo-service-ok`, { tags: ['x'] }],
    ['PATCH', () => `/api/v2/boards/${ACME_BOARD}/services/demo-service`, { tags: [] }],
    // Unknown paths and wrong methods under the API do not tell a stranger what exists.
    ['GET', () => '/api/v2/nothing-here'],
    ['GET', () => '/api/v2'],
    ['PUT', () => '/api/v2/incidents'],
  ];

  const credentials: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['the Basic scheme', { authorization: 'Basic x' }],
    ['a Basic scheme carrying a real key', { authorization: `Basic ${ACME_KEY}` }],
    ['an unknown key', { authorization: 'Bearer not-a-key-at-all' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['the bare word Bearer', { authorization: 'Bearer' }],
    ['a key without scheme', { authorization: ACME_KEY }],
    ['two tokens', { authorization: `Bearer ${ACME_KEY} extra` }],
    ['a key one character off', { authorization: `Bearer ${ACME_KEY}x` }],
  ];

  for (const [what, headers] of credentials) {
    it(`answers exactly the spec body for ${what}, on every endpoint`, async () => {
      for (const [method, path, body] of endpoints) {
        const res = await s.api(method, path(), { key: null, headers, body });
        expect(res.status, `${method} ${path()}: ${res.text}`).toBe(401);
        expect(res.body, `${method} ${path()}`).toEqual(UNAUTHORIZED);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      }
    });
  }

  it('accepts the scheme case-insensitively (RFC 9110) with the right key', async () => {
    const res = await s.api('GET', '/api/v2/custom_monitors', { key: null, headers: { authorization: `bearer ${ACME_KEY}` } });
    expect(res.status).toBe(200);
  });
});

describe('404 unknown path', () => {
  for (const path of [
    '/api/v2',
    '/api/v2/',
    '/api/v2/nothing-here',
    '/api/v2/incidents/1/updates',
    '/api/v2/boards',
    '/api/v2/services/demo-service/incidents/extra',
    '/api/v2//incidents',
    '/api/v1/services',
    '/api/v2x/services',
    '/nothing-here',
  ]) {
    it(`GET ${path} is 404 with the spec body`, async () => {
      const res = await s.api('GET', path);
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    });
  }

  it('a path segment holding a NUL character names nothing: 404, on every engine', async () => {
    for (const path of ['/api/v2/services/%00', '/api/v2/services/acme%00api/incidents', `/api/v2/boards/${ACME_BOARD}%00`, '/api/v2/incidents/1%00']) {
      const res = await s.api('GET', path);
      expect(res.status, path).toBe(404);
      expectErrorShape(res, 404);
    }
  });

  it('a path segment that is not valid percent-encoding is a 400, not a 5xx', async () => {
    const res = await s.api('GET', '/api/v2/services/%E0%A4%A/incidents');
    expectErrorShape(res, 400);
  });

  it('a request-target that is not a valid URL is answered with a 4xx, and the server keeps serving', async () => {
    const port = Number(new URL(s.url).port);
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      const done = () => {
        clearTimeout(timer);
        socket.destroy();
        resolve(data);
      };
      const timer = setTimeout(done, 2000);
      socket.on('data', (b) => (data += b.toString('utf8')));
      socket.on('end', done);
      socket.on('error', done);
      socket.write(`GET //[ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ACME_KEY}\r\nConnection: close\r\n\r\n`);
    });
    expect(reply, 'no answer at all: the request hung').not.toBe('');
    const statusLine = reply.split('\r\n')[0] ?? '';
    expect(statusLine).toMatch(/^HTTP\/1\.1 4\d\d /);
    const status = Number(statusLine.split(' ')[1]);
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
    expect(body.errors[0].status).toBe(status);
    expect((await s.api('GET', '/healthz', { key: null })).status).toBe(200);
  });

  /** What the server answers to bytes Node's HTTP parser refuses. */
  const raw = (request: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
      let data = '';
      socket.on('data', (b) => (data += b.toString('utf8')));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
      socket.write(request);
    });

  it("requests Node's parser refuses are answered in the error shape: 400 for garbage, 431 for oversized headers", async () => {
    for (const [request, status, title] of [
      ['NOT HTTP AT ALL\r\n\r\n', 400, 'Bad request'],
      [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'Request header fields too large'],
    ] as const) {
      const reply = await raw(request);
      expect(reply.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${title}`);
      expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({ errors: [{ status, title, detail: expect.any(String) }] });
    }
    expect((await s.api('GET', '/healthz', { key: null })).status).toBe(200);
  });
});

describe('405 wrong method', () => {
  const cases: [string, string, string][] = [
    ['PUT', '/api/v2/incidents', 'GET, POST'],
    ['DELETE', '/api/v2/incidents', 'GET, POST'],
    ['DELETE', '/api/v2/services', 'GET'],
    ['POST', '/api/v2/services/demo-service/incidents', 'GET'],
    ['PUT', '/api/v2/incidents/:id', 'GET, PATCH, DELETE'],
    ['POST', '/api/v2/incidents/:id', 'GET, PATCH, DELETE'],
    ['POST', '/api/v2/custom_monitors', 'GET'],
    ['DELETE', `/api/v2/boards/${ACME_BOARD}`, 'GET'],
    ['DELETE', `/api/v2/boards/${ACME_BOARD}/services/demo-service`, 'POST, PATCH'],
    ['GET', `/api/v2/boards/${ACME_BOARD}/services/demo-service`, 'POST, PATCH'],
  ];
  for (const [method, path, allow] of cases) {
    it(`${method} ${path} is 405 with Allow: ${allow}`, async () => {
      const res = await s.api(method, path.replace(':id', incidentId));
      expectErrorShape(res, 405);
      expect(res.body.errors[0].title).toBe('Method not allowed');
      const got = (res.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .sort();
      expect(got).toEqual(allow.split(', ').sort());
    });
  }

  it('POST /healthz is 405 with Allow: GET', async () => {
    const res = await s.api('POST', '/healthz', { key: null });
    expectErrorShape(res, 405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});

describe('422 for text holding a NUL character', () => {
  it('names the field, and stores nothing', async () => {
    const before = await s.ctx.db.selectFrom('incidents').select('id').execute();
    const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Bad\u0000title', tags: ['ok', 'n\u0000'] } });
    expectErrorShape(res, 422);
    expect(res.body.errors.map((e: any) => e.detail)).toEqual(['title must not contain the NUL character', 'tags[1] must not contain the NUL character']);
    expect(await s.ctx.db.selectFrom('incidents').select('id').execute()).toEqual(before);
  });
});

describe('400 bad bodies', () => {
  const writes: [string, string, () => string][] = [
    ['POST', '/api/v2/incidents', () => '/api/v2/incidents'],
    ['PATCH', '/api/v2/incidents/:id', () => `/api/v2/incidents/${incidentId}`],
    ['POST', '/api/v2/boards/:board_id/services/:urlname', () => `/api/v2/boards/${ACME_BOARD}/services/demo-service-ok`],
    ['PATCH', '/api/v2/boards/:board_id/services/:urlname', () => `/api/v2/boards/${ACME_BOARD}/services/demo-service`],
  ];

  for (const [method, label, path] of writes) {
    describe(`${method} ${label}`, () => {
      for (const raw of ['{', '{"title": "x",}', "{'title': 'x'}", 'title=x', '{"title": "x"} trailing', ' ', '\u0000']) {
        it(`malformed JSON ${JSON.stringify(raw)} is 400 Bad request`, async () => {
          const res = await s.api(method, path(), { rawBody: raw, headers: { 'content-type': 'application/json' } });
          expectErrorShape(res, 400);
          expect(res.body.errors[0].title).toBe('Bad request');
        });
      }

      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'json']) {
        it(`a JSON body sent as ${type} is 400 Bad request`, async () => {
          const res = await s.api(method, path(), {
            rawBody: JSON.stringify({ service_id: 1001, title: 'Typed', tags: ['t'] }),
            headers: { 'content-type': type },
          });
          expectErrorShape(res, 400);
          expect(res.body.errors[0].title).toBe('Bad request');
          expect(res.body.errors[0].detail).toContain('application/json');
        });
      }

      it('a JSON body without any Content-Type is 400 Bad request', async () => {
        const res = await send(s, method, path(), { authorization: `Bearer ${ACME_KEY}` }, [Buffer.from('{"title":"x"}')]);
        expectErrorShape(res, 400);
      });

      for (const raw of ['[]', '[{"title":"x"}]', 'null', '"a string"', '42', 'true']) {
        it(`JSON that is not an object (${raw}) is 400 Bad request`, async () => {
          const res = await s.api(method, path(), { rawBody: raw, headers: { 'content-type': 'application/json' } });
          expectErrorShape(res, 400);
          expect(res.body.errors[0].title).toBe('Bad request');
          expect(res.body.errors[0].detail).toMatch(/object/i);
        });
      }
    });
  }
});

describe('413 body over 1 MiB', () => {
  const MiB = 1024 * 1024;
  /** A valid JSON object of `size` bytes. */
  const jsonOf = (size: number) => {
    const head = '{"service_id":1001,"title":"Big","description":"';
    const tail = '"}';
    return Buffer.from(head + 'a'.repeat(size - head.length - tail.length) + tail);
  };

  it('with Content-Length: 413 with the error shape', async () => {
    const body = jsonOf(MiB + 1);
    const res = await send(
      s,
      'POST',
      '/api/v2/incidents',
      { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json', 'content-length': body.length },
      [body],
    );
    expectErrorShape(res, 413);
  });

  it('chunked, without Content-Length: 413 with the error shape', async () => {
    const body = jsonOf(2 * MiB);
    const chunks: Buffer[] = [];
    for (let i = 0; i < body.length; i += 64 * 1024) chunks.push(body.subarray(i, i + 64 * 1024));
    const res = await send(s, 'POST', '/api/v2/incidents', { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' }, chunks);
    expectErrorShape(res, 413);
  });

  it('on PATCH of a board service too', async () => {
    const tags = JSON.stringify({ tags: Array.from({ length: 20 }, () => 'x'.repeat(60_000)) });
    const res = await send(
      s,
      'PATCH',
      `/api/v2/boards/${ACME_BOARD}/services/demo-service`,
      { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
      [Buffer.from(tags)],
    );
    expectErrorShape(res, 413);
  });

  it('exactly 1 MiB is read (the limit is inclusive) and judged on its content', async () => {
    const res = await send(s, 'POST', '/api/v2/incidents', { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' }, [jsonOf(MiB)]);
    // The description is far over its own limit: a 422, not a 413.
    expectErrorShape(res, 422);
    expect(res.body.errors[0].source).toEqual({ pointer: '/description' });
  });

  it('the server keeps answering afterwards', async () => {
    expect((await s.api('GET', '/api/v2/custom_monitors')).status).toBe(200);
  });
});

describe('GET /healthz', () => {
  it('answers 200 {"status":"ok"} without any Authorization', async () => {
    const res = await s.api('GET', '/healthz', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('ignores a bad Authorization header', async () => {
    const res = await s.api('GET', '/healthz', { key: 'nope' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });
});

describe('the database after all the bad requests above', () => {
  it('holds exactly the rows it held before', async () => {
    expect(await snapshot(s)).toEqual(before);
    const res = await s.api('GET', `/api/v2/incidents/${incidentId}`);
    expect(res.body.data.attributes).toMatchObject({ title: 'Existing', resolved: false });
    expect(res.body.data.attributes.updates).toHaveLength(1);
  });
});

describe('429 rate limit per API key', () => {
  const LIMITED = `
public_url: http://status.test
rate_limit: { per_minute: 3 }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}", "acme-key-2"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
  - name: Globex
    plan: business
    api_keys: ["${GLOBEX_KEY}"]
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
`;
  let r: TestServer;
  beforeAll(async () => {
    r = await startTestServer({ config: LIMITED });
  });
  afterAll(async () => {
    await r?.stop();
  });

  it('the 4th request in a minute is 429 with Retry-After; it writes nothing; other keys are not affected', async () => {
    for (let i = 0; i < 3; i++) {
      const ok = await r.api('GET', '/api/v2/custom_monitors');
      expect(ok.status, ok.text).toBe(200);
    }
    const rowsBefore = await snapshot(r);
    const limited = await r.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Too many' } });
    expectErrorShape(limited, 429);
    expect(limited.body.errors).toHaveLength(1);
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(20);
    expect(await snapshot(r)).toEqual(rowsBefore);

    // Still limited on any path, known or not.
    expectErrorShape(await r.api('GET', '/api/v2/services'), 429);

    // Another company's key has its own budget.
    for (let i = 0; i < 3; i++) {
      const other = await r.api('GET', '/api/v2/custom_monitors', { key: GLOBEX_KEY });
      expect(other.status, other.text).toBe(200);
    }
    expectErrorShape(await r.api('GET', '/api/v2/custom_monitors', { key: GLOBEX_KEY }), 429);

    // The limit is per key: the same company's second key is not limited either.
    expect((await r.api('GET', '/api/v2/custom_monitors', { key: 'acme-key-2' })).status).toBe(200);

    // Without a valid key, the answer is still 401, and /healthz is never limited.
    expect((await r.api('GET', '/api/v2/custom_monitors', { key: 'unknown-key' })).body).toEqual(UNAUTHORIZED);
    for (let i = 0; i < 5; i++) expect((await r.api('GET', '/healthz', { key: null })).status).toBe(200);
  });
});
