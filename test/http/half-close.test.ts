import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

/** Writes a whole request, then half-closes (FIN), as `nc -q`, some proxies and health checkers do; resolves with all that came back. */
function sendThenHalfClose(server: TestServer, request: string): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const parts: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    socket.on('error', reject);
    socket.end(request);
  });
}

describe('a client that half-closes after its request', () => {
  it('gets the whole answer to each POST, and each write is stored once', async () => {
    const titles = Array.from({ length: 10 }, (_, i) => `half-closed ${i}`);
    for (const title of titles) {
      const body = JSON.stringify({ service_id: 1001, title });
      const reply = await sendThenHalfClose(
        s,
        `POST /api/v2/incidents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ACME_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      expect(reply.split('\r\n')[0], reply).toBe('HTTP/1.1 201 Created');
      const [, payload] = reply.split('\r\n\r\n');
      expect(JSON.parse(payload!).data.attributes.title).toBe(title);
    }
    const stored = await s.ctx.db.selectFrom('incidents').select('title').where('title', 'like', 'half-closed %').execute();
    expect(stored.map((r) => r.title).sort()).toEqual(titles);
  });

  it('gets the whole answer to a GET', async () => {
    const reply = await sendThenHalfClose(s, `GET /api/v2/services HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ACME_KEY}\r\n\r\n`);
    expect(reply.split('\r\n')[0], reply).toBe('HTTP/1.1 200 OK');
    const [, payload] = reply.split('\r\n\r\n');
    expect(JSON.parse(payload!).data.length).toBeGreaterThan(0);
  });
});
