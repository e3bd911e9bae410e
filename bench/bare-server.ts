/**
 * Child process for `npm run bench`: the baseline, a bare node:http server that
 * answers every request with a fixed JSON body. The parent sets the status and
 * the body's byte size to match the statusbot response being compared, or
 * hands it the very bytes and headers statusbot sent (a compressed page).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildReply, ParentMessage } from './ipc.js';

if (!process.send) {
  console.error('bare-server must be started with fork()');
  process.exit(2);
}

const reply = (message: ChildReply) => process.send?.(message);

/** `{"data":"xxx…"}`, exactly `bytes` bytes long (at least the 11-byte skeleton). */
function fixedJson(bytes: number): Buffer {
  const skeleton = '{"data":""}';
  return Buffer.from(`{"data":"${'x'.repeat(Math.max(0, bytes - skeleton.length))}"}`);
}

let status = 200;
let body = fixedJson(64);
let headers: Record<string, string | number> = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length };

const server = createServer((req, res) => {
  // Consume the request body (POST) before answering, as a real handler must.
  req.on('end', () => {
    res.writeHead(status, headers);
    res.end(body);
  });
  req.resume();
});
server.keepAliveTimeout = 65_000;

process.on('message', (message: ParentMessage) => {
  if (message.type === 'body') {
    status = message.status;
    body = fixedJson(message.bytes);
    headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length };
    reply({ type: 'body-set', bytes: body.length });
  } else if (message.type === 'raw') {
    status = message.status;
    body = Buffer.from(message.body, 'base64');
    headers = { ...message.headers, 'Content-Length': body.length };
    reply({ type: 'body-set', bytes: body.length });
  } else if (message.type === 'rss') {
    reply({ type: 'rss', maxRssKb: process.resourceUsage().maxRSS, rssKb: Math.round(process.memoryUsage.rss() / 1024) });
  } else if (message.type === 'cpu') {
    const used = process.cpuUsage();
    reply({ type: 'cpu', micros: used.user + used.system });
  } else if (message.type === 'stop') {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
  }
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  reply({ type: 'ready', port: (server.address() as AddressInfo).port });
});
