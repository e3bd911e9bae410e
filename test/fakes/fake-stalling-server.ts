import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { createBrotliCompress, createDeflate, createGzip } from 'node:zlib';

/** A peer that takes connections and then keeps statusbot waiting. */
export interface FakeStallingServer {
  url: string;
  /** Requests (or, for a black hole, connections) received so far. */
  readonly received: number;
  close(): Promise<void>;
}

/** Accepts TCP connections and never says a word: an endpoint that hangs (Slack, Discord, PostgreSQL behind a dead link). */
export async function startBlackHole(): Promise<FakeStallingServer> {
  const sockets = new Set<Socket>();
  let received = 0;
  const server = createTcpServer((socket) => {
    received++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get received() {
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * An HTTP server that answers every request with 200 and then a body that
 * trickles in, a byte every 100 ms, never ending: a feed or a webhook that
 * keeps each of its bytes within any read timeout.
 */
export async function startTrickle(): Promise<FakeStallingServer> {
  const open = new Set<ServerResponse>();
  let received = 0;
  const timer = setInterval(() => {
    for (const res of open) res.write(' ');
  }, 100);
  const server = createServer((req, res) => {
    received++;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  return listening(server, timer, () => received);
}

export type BodyEncoding = 'gzip' | 'deflate' | 'br';
type Encoder = ReturnType<typeof createGzip> | ReturnType<typeof createDeflate> | ReturnType<typeof createBrotliCompress>;

/**
 * An HTTP server that answers every request with 200 and a body compressed in
 * `encoding`, sends the start of a document and then stalls (or, with
 * `trickle`, sends a compressed space every 100 ms, never ending): a feed whose
 * read can only end by the reader's deadline, with a decoder in the way.
 */
export async function startEncodedStall(encoding: BodyEncoding, options: { trickle?: boolean } = {}): Promise<FakeStallingServer> {
  const encoders = new Set<Encoder>();
  let received = 0;
  const timer = setInterval(() => {
    if (!options.trickle) return;
    for (const encoder of encoders) {
      encoder.write(' ');
      encoder.flush();
    }
  }, 100);
  const server = createServer((req, res) => {
    received++;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
    const encoder: Encoder = encoding === 'gzip' ? createGzip() : encoding === 'deflate' ? createDeflate() : createBrotliCompress();
    encoder.pipe(res);
    encoder.write('{"status": ');
    encoder.flush();
    encoders.add(encoder);
    res.on('close', () => {
      encoders.delete(encoder);
      encoder.destroy();
    });
  });
  return listening(server, timer, () => received);
}

/** An HTTP server of these fakes, listening on a free port; closing it stops its timer and cuts what it holds open. */
async function listening(server: Server, timer: NodeJS.Timeout, received: () => number): Promise<FakeStallingServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get received() {
      return received();
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
