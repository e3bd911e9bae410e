import type { ServerResponse } from 'node:http';
import { endAnswer } from './read-body.js';
import type { Reply } from './routes.js';

/** Sends a route's reply: its text, its JSON body, or no body. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  if (reply.text) {
    res.writeHead(reply.status, { ...reply.headers, 'Content-Type': reply.text.type, 'Content-Length': Buffer.byteLength(reply.text.body) });
    res.end(reply.text.body);
    return;
  }
  if (reply.body === undefined) {
    res.writeHead(reply.status, reply.headers);
    res.end();
    return;
  }
  sendJson(res, reply.status, JSON.stringify(reply.body), reply.headers);
}

export function sendJson(res: ServerResponse, status: number, payload: string | Buffer, headers?: Record<string, string>): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length,
  });
  endAnswer(res, payload);
}
