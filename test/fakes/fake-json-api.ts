import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body, parsed (undefined when it is not JSON). */
  json: any;
  /** When it arrived (performance.now()). */
  at: number;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What the vendor answers to a request it accepted, and to one it refuses (null: accepted). */
export interface VendorBehaviour {
  refuse(call: ReceivedCall): Answer | null;
  accept(call: ReceivedCall): Answer;
}

/** A JSON API on 127.0.0.1 that records what reached it and can be told to fail for a while. */
export interface FakeJsonApi {
  url: string;
  /** Requests it accepted, in order. */
  received: ReceivedCall[];
  /** Every request, those told to fail and those refused included. */
  requests: ReceivedCall[];
  /** The next `count` requests get this answer instead. */
  failNext(count: number, answer: Answer): void;
  close(): Promise<void>;
}

export async function startFakeJsonApi(behaviour: VendorBehaviour): Promise<FakeJsonApi> {
  const received: ReceivedCall[] = [];
  const requests: ReceivedCall[] = [];
  const failures: Answer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const call: ReceivedCall = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, json, at: performance.now() };
      requests.push(call);
      let final = failures.shift() ?? behaviour.refuse(call);
      if (!final) {
        received.push(call);
        final = behaviour.accept(call);
      }
      res.writeHead(final.status, { ...(final.body === undefined ? {} : { 'content-type': 'application/json' }), ...final.headers });
      res.end(final.body === undefined ? '' : JSON.stringify(final.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    requests,
    failNext(count, answer) {
      for (let i = 0; i < count; i++) failures.push(answer);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
