import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (performance.now()). */
  at: number;
}

/** A webhook receiver on 127.0.0.1 that records what reached it and can be told to fail for a while. */
export interface FakeWebhook {
  url: string;
  received: ReceivedHook[];
  /** Every request, those told to fail included. */
  requests: ReceivedHook[];
  /** The next `count` requests get this status (and Retry-After seconds when given) instead of 200. */
  failNext(count: number, status: number, retryAfterSeconds?: number): void;
  /** From now on a 200 is followed by a body that trickles in, a byte every 100 ms, for `forMs` (forever when Infinity); null: answers at once again. */
  trickle(forMs: number | null): void;
  /** The most requests that were under way at once. */
  readonly mostAtOnce: number;
  close(): Promise<void>;
}

export async function startFakeWebhook(): Promise<FakeWebhook> {
  const received: ReceivedHook[] = [];
  const requests: ReceivedHook[] = [];
  const failures: { status: number; retryAfter?: number }[] = [];
  let trickleMs: number | null = null;
  let open = 0;
  let mostAtOnce = 0;
  const server: Server = createServer((req, res) => {
    open++;
    mostAtOnce = Math.max(mostAtOnce, open);
    res.on('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() });
      const failure = failures.shift();
      if (failure) {
        res.writeHead(failure.status, failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {});
        res.end('{"error":"unavailable"}');
        return;
      }
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() });
      res.writeHead(200, { 'content-type': 'application/json' });
      if (trickleMs === null) {
        res.end('{"ok":true}');
        return;
      }
      const until = Date.now() + trickleMs;
      res.write('{');
      const timer = setInterval(() => {
        if (Date.now() < until) res.write(' ');
        else res.end('}');
      }, 100);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    requests,
    failNext(count, status, retryAfterSeconds) {
      for (let i = 0; i < count; i++) failures.push({ status, ...(retryAfterSeconds !== undefined ? { retryAfter: retryAfterSeconds } : {}) });
    },
    trickle(forMs) {
      trickleMs = forMs;
    },
    get mostAtOnce() {
      return mostAtOnce;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
