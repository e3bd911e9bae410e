import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES_CONFIG } from '../helpers/pages.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { PATIENCE_MS } from '../helpers/patience.js';

let s: TestServer;
let incidentPath: string;
beforeAll(async () => {
  s = await startTestServer({ config: PAGES_CONFIG });
  const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Routed' } });
  expect(created.status, created.text).toBe(201);
  incidentPath = `/api/v2/incidents/${created.body.data.id}`;
});
afterAll(async () => {
  await s?.stop();
});

/** The headers of an answer that say something of its content (not of the exchange). */
function contentHeaders(headers: Headers): Record<string, string> {
  const exchange = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);
  const kept: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!exchange.has(name)) kept[name] = value;
  });
  return kept;
}

describe('HEAD', () => {
  const paths: [string, () => string][] = [
    ['an API list', () => '/api/v2/services'],
    ['a cached API read', () => incidentPath],
    ['the API description', () => '/api/v2/openapi.json'],
    ['the API reference', () => '/api/docs'],
    ['a file of the API reference', () => '/api/docs/init.js'],
    ['the health check', () => '/healthz'],
    ['a status page', () => '/status/acme'],
  ];
  for (const [what, path] of paths) {
    it(`answers ${what} with the status and headers of GET, and no body`, async () => {
      // The body as it is: fetch decodes what it asked compressed, which would no longer match Content-Length.
      const headers = { authorization: `Bearer ${ACME_KEY}`, 'accept-encoding': 'identity' };
      const get = await fetch(`${s.url}${path()}`, { headers });
      const getBody = await get.arrayBuffer();
      const head = await fetch(`${s.url}${path()}`, { method: 'HEAD', headers });
      expect(head.status).toBe(get.status);
      expect(contentHeaders(head.headers)).toEqual(contentHeaders(get.headers));
      expect(Number(head.headers.get('content-length'))).toBe(getBody.byteLength);
      expect(await head.text()).toBe('');
    });
  }

  it('is refused where no GET is declared, with the methods that are', async () => {
    const res = await fetch(`${s.url}/api/v2/services/demo-service/reports`, { method: 'HEAD', headers: { authorization: `Bearer ${ACME_KEY}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe("the server's own paths", () => {
  it('refuses another method with 405 and Allow, in the error shape', async () => {
    for (const path of ['/healthz', '/api/v2/openapi.json', '/api/docs', '/api/docs/init.js']) {
      const res = await fetch(`${s.url}${path}`, { method: 'DELETE' });
      expect(res.status, path).toBe(405);
      expect(res.headers.get('allow'), path).toBe('GET');
      expect((await res.json()).errors[0]).toMatchObject({ status: 405, title: 'Method not allowed', detail: 'DELETE is not allowed here; use GET' });
    }
  });
});

/**
 * Sends a request's headers and the start of the body its Content-Length
 * announces, never the rest; resolves with the answer's status line and body.
 */
function sendWithoutBody(headers: string[]): Promise<{ statusLine: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer while the body was incomplete; got ${JSON.stringify(data)}`));
    }, PATIENCE_MS);
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('utf8');
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(data.slice(0, end))?.[1]);
      if (data.length < end + 4 + length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({ statusLine: data.slice(0, data.indexOf('\r\n')), body: JSON.parse(data.slice(end + 4, end + 4 + length)) });
    });
    socket.on('error', reject);
    socket.write(
      `POST /api/v2/incidents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n${headers.join('\r\n')}\r\n\r\n{"title":"`,
    );
  });
}

describe('an API request without a valid key', () => {
  const UNAUTHORIZED = { errors: [{ status: 401, title: 'Unauthorized access', detail: 'You are not authorized to access this resource' }] };

  for (const [what, headers] of [
    ['no key', []],
    ['a wrong key', ['Authorization: Bearer not-a-key-at-all']],
  ] as const) {
    it(`with ${what} is answered 401 before its body is read`, async () => {
      const answer = await sendWithoutBody([...headers]);
      expect(answer.statusLine).toBe('HTTP/1.1 401 Unauthorized');
      expect(answer.body).toEqual(UNAUTHORIZED);
    });
  }
});
