import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpProblem } from './http-errors.js';

/** The client went away before its body arrived: nobody is left to answer, and nothing failed on our side. */
export class ClientAbortedError extends Error {
  constructor() {
    super('the client closed the connection before its request body arrived');
    this.name = 'ClientAbortedError';
  }
}

const EMPTY = Buffer.alloc(0);

/** The request body, up to `maxBytes` (413 beyond, also when the length announced is larger). */
export function readBody(req: IncomingMessage, maxBytes: number, what = 'The body'): Promise<Buffer> {
  const length = req.headers['content-length'];
  // Without a length or chunked encoding there is no body (RFC 9112 §6.3); do not wait for one.
  if (length === undefined && req.headers['transfer-encoding'] === undefined) return Promise.resolve(EMPTY);
  // Read after other awaits (authentication): a client that left meanwhile sends nothing more, and no event will say so.
  if (req.destroyed) return Promise.reject(new ClientAbortedError());
  const tooLarge = () => new HttpProblem('payload_too_large', `${what} must not exceed ${maxBytes} bytes`, { Connection: 'close' });
  if (Number(length ?? 0) > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    // A client that disconnects mid-body ends the stream with an `aborted` error, or only closes it.
    req.on('error', (error) => reject(req.complete ? error : new ClientAbortedError()));
    req.on('close', () => {
      if (!req.complete) reject(new ClientAbortedError());
    });
  });
}

/** At most this much of a refused body is read away after its 413, and for at most this long. */
export const DISCARD_MAX_BYTES = 16 * 1024 * 1024;
const DISCARD_MAX_MS = 10_000;

/**
 * Ends an answer: a 413 given before the request's body was read is sent at
 * once, but its connection closed only once the rest of that body has come
 * and been dropped (at most DISCARD_MAX_BYTES, for at most DISCARD_MAX_MS).
 * Closed with bytes unread, the connection is reset, and a client still
 * sending sees EPIPE, most before they read the answer.
 */
export function endAnswer(res: ServerResponse, body?: string | Buffer): void {
  const req = res.req;
  if (res.statusCode !== 413 || req.complete || req.destroyed) return void res.end(body);
  if (body !== undefined) res.write(body);
  let left = DISCARD_MAX_BYTES;
  const close = () => {
    clearTimeout(timer);
    req.removeListener('data', discard);
    req.removeListener('end', close);
    req.removeListener('close', close);
    if (!res.writableEnded) res.end();
  };
  const discard = (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) close();
  };
  const timer = setTimeout(close, DISCARD_MAX_MS);
  req.removeAllListeners('data');
  req.on('data', discard);
  req.once('end', close);
  req.once('close', close);
  req.resume();
}
