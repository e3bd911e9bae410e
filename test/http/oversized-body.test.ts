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

/** More than the socket buffers of both ends hold together, so that the client is still sending when the 413 is written. */
const BODY = Buffer.alloc(8 * 1024 * 1024, 'a');
const TRIES = 10;

/**
 * Sends a whole request as a client that does not wait for an answer before its body is out (most do),
 * and resolves with what it could read before the connection closed, and how writing ended.
 */
function sendWhole(server: TestServer, head: string, body: Buffer): Promise<{ reply: string; writeError: string | null }> {
  const { port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    const parts: Buffer[] = [];
    let writeError: string | null = null;
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      writeError = error.code ?? error.message;
    });
    socket.on('close', () => resolve({ reply: Buffer.concat(parts).toString('utf8'), writeError }));
    socket.write(head);
    // In pieces, as a client streams a file: each written once the one before is taken.
    let offset = 0;
    const pump = () => {
      while (offset < body.length) {
        const piece = body.subarray(offset, offset + 64 * 1024);
        offset += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
      socket.end();
    };
    pump();
  });
}

const statusLine = (reply: string) => reply.split('\r\n')[0];

describe('a body over 1 MiB sent whole', () => {
  it(`with Content-Length: the client reads the 413 in the error shape, every time (${TRIES} tries)`, async () => {
    for (let i = 0; i < TRIES; i++) {
      const { reply, writeError } = await sendWhole(
        s,
        `POST /api/v2/incidents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ACME_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n`,
        BODY,
      );
      expect({ try: i, status: statusLine(reply), writeError }).toEqual({ try: i, status: 'HTTP/1.1 413 Payload Too Large', writeError: null });
      expect(reply).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({
        errors: [{ status: 413, title: 'Payload too large', detail: 'The body must not exceed 1048576 bytes' }],
      });
    }
  });

  it(`chunked: the client reads the 413, every time (${TRIES} tries)`, async () => {
    const chunked = Buffer.concat([Buffer.from(`${BODY.length.toString(16)}\r\n`), BODY, Buffer.from('\r\n0\r\n\r\n')]);
    for (let i = 0; i < TRIES; i++) {
      const { reply, writeError } = await sendWhole(
        s,
        `POST /api/v2/incidents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ACME_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        chunked,
      );
      expect({ try: i, status: statusLine(reply), writeError }).toEqual({ try: i, status: 'HTTP/1.1 413 Payload Too Large', writeError: null });
    }
  });

  it('to a status page form: the client reads the 413', async () => {
    for (let i = 0; i < TRIES; i++) {
      const { reply, writeError } = await sendWhole(
        s,
        `POST /status/acme-status/subscribe HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${BODY.length}\r\n\r\n`,
        BODY,
      );
      expect({ try: i, status: statusLine(reply), writeError }).toEqual({ try: i, status: 'HTTP/1.1 413 Payload Too Large', writeError: null });
    }
  });

  it('the server keeps answering afterwards', async () => {
    expect((await s.api('GET', '/api/v2/services')).status).toBe(200);
  });
});
