import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that records what reached it and can be told to fail for a while. */
export interface FakeWebhook {
  url: string;
  received: ReceivedHook[];
  /** The next `count` requests get this status (and Retry-After seconds when given) instead of 200. */
  failNext(count: number, status: number, retryAfterSeconds?: number): void;
  close(): Promise<void>;
}

export async function startFakeWebhook(): Promise<FakeWebhook> {
  const received: ReceivedHook[] = [];
  const failures: { status: number; retryAfter?: number }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const failure = failures.shift();
      if (failure) {
        res.writeHead(failure.status, failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {});
        res.end('{"error":"unavailable"}');
        return;
      }
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    failNext(count, status, retryAfterSeconds) {
      for (let i = 0; i < count; i++) failures.push({ status, ...(retryAfterSeconds !== undefined ? { retryAfter: retryAfterSeconds } : {}) });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
