import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, logLevelOf } from '../../src/infrastructure/pino-logger.js';
import type { LogLevel } from '../../src/infrastructure/pino-logger.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

/** A pino logger writing JSON lines into memory, as it would to stdout. */
function capturedLogger(level: LogLevel = 'info') {
  const lines: string[] = [];
  let partial = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = partial + chunk.toString('utf8');
      const parts = text.split('\n');
      partial = parts.pop()!;
      lines.push(...parts);
      done();
    },
  });
  const logger = createLogger({ level, destination, pretty: false });
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, any>);
  return { logger, lines, records };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('logs', () => {
  it('writes one JSON line per request with its id, method, route, status, duration and company, and never the key', async () => {
    const log = capturedLogger();
    server = await startTestServer({ logger: log.logger });
    const created = await server.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Logins fail', description: 'Looking.' } });
    expect(created.status).toBe(201);
    const res = await server.api('GET', `/api/v2/incidents/${created.body.data.id}`);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const line = await waitUntil(() => log.records().find((r) => r.reqId === id));
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/api/v2/incidents/:id',
      path: `/api/v2/incidents/${created.body.data.id}`,
      status: 200,
      companyId: expect.any(Number),
    });
    expect(line.durationMs).toBeGreaterThan(0);
    expect(typeof line.time).toBe('number');
    expect(log.lines.join('\n')).not.toContain(ACME_KEY);
  });

  it('takes X-Request-Id from the request and echoes it; a senseless one is replaced', async () => {
    const log = capturedLogger();
    server = await startTestServer({ logger: log.logger });
    const given = await server.api('GET', '/api/v2/services', { headers: { 'x-request-id': 'lb-7f3a.42' } });
    expect(given.headers.get('x-request-id')).toBe('lb-7f3a.42');
    await waitUntil(() => log.records().find((r) => r.reqId === 'lb-7f3a.42' && r.route === '/api/v2/services'));

    const senseless = await server.api('GET', '/api/v2/services', { headers: { 'x-request-id': `a b ${'x'.repeat(200)}` } });
    expect(senseless.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // Every request its own id, the same process's ids in the order the requests came.
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await server.api('GET', '/api/v2/services')).headers.get('x-request-id')!);
    expect(new Set(made).size).toBe(3);
    expect([...made].sort()).toEqual(made);
  });

  it('echoes X-Request-Id on every kind of answer: pages, 304s, errors, the server’s own routes', async () => {
    server = await startTestServer();
    const page = await fetch(`${server.url}/status/acme-status`, { headers: { 'x-request-id': 'page-1' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-request-id')).toBe('page-1');
    const held = await fetch(`${server.url}/status/acme-status`, { headers: { 'x-request-id': 'page-2', 'if-none-match': page.headers.get('etag')! } });
    expect(held.status).toBe(304);
    expect(held.headers.get('x-request-id')).toBe('page-2');
    for (const [path, status] of [
      ['/status/acme-status/nope', 404],
      ['/api/v2/nope', 401],
      ['/healthz', 200],
      ['/api/v2/openapi.json', 200],
      ['/assets/statusbot.css', 200],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { headers: { 'x-request-id': `own-${status}` } });
      expect([path, res.status, res.headers.get('x-request-id')]).toEqual([path, status, `own-${status}`]);
    }
  });

  it('logs an unknown path under one route name and a refused key without the key', async () => {
    const log = capturedLogger();
    server = await startTestServer({ logger: log.logger });
    await server.api('GET', '/no/such/place/123', { key: null });
    const wrongKey = 'sb_thisIsNotAKeyButLooksLikeOne0000000';
    expect((await server.api('GET', '/api/v2/services', { key: wrongKey })).status).toBe(401);
    await waitUntil(() => log.records().filter((r) => r.msg === 'request').length >= 2);
    const [unknown, refused] = log.records().filter((r) => r.msg === 'request');
    expect(unknown).toMatchObject({ route: '(unmatched)', status: 404, companyId: null });
    expect(refused).toMatchObject({ route: '(unmatched)', status: 401, companyId: null });
    expect(log.lines.join('\n')).not.toContain(wrongKey);
  });

  it('logs a client that leaves mid-body at debug, as aborted, without an error or a stack', async () => {
    const log = capturedLogger('debug');
    server = await startTestServer({ logger: log.logger });
    const { port } = new URL(server.url);
    const socket = connect(Number(port));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /api/v2/incidents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ACME_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
    );
    // 100 Continue: the server has taken the request and waits for its body, of which the client sends a part and leaves.
    await new Promise((resolve) => socket.once('data', resolve));
    socket.write('{"service_id":');
    socket.destroy();

    const line = await waitUntil(() => log.records().find((r) => r.msg === 'request aborted by the client'));
    expect(line).toMatchObject({ level: 20, method: 'POST', status: 499, path: '/api/v2/incidents' });
    expect(log.records().filter((r) => r.level >= 40)).toEqual([]);
    expect(log.lines.join('\n')).not.toMatch(/stack|at .*\.js:\d+/);
  });

  it('redacts secrets in fields, messages and errors', () => {
    const log = capturedLogger();
    const key = 'sb_abcdefghijklmnopqrstuvwxyz012345';
    log.logger.info('calling a webhook', {
      authorization: `Bearer ${key}`,
      headers: { authorization: 'Bearer x', cookie: 'c=1' },
      secret: 'hush-hush-hush-hush',
    });
    log.logger.info(`key ${key} was refused; db postgres://app:s3cret@db.example/prod`);
    log.logger.error('a delivery failed', new Error(`POST refused for token xoxb-1234-5678-abcdef with Bearer ${key}`));
    const text = log.lines.join('\n');
    for (const secret of [key, 'hush-hush', 's3cret', 'xoxb-1234', 'c=1']) expect(text).not.toContain(secret);
    const [fields, message, error] = log.records();
    expect(fields).toMatchObject({ authorization: '[redacted]', headers: { authorization: '[redacted]', cookie: '[redacted]' }, secret: '[redacted]' });
    expect(message!.msg).toBe('key sb_[redacted] was refused; db postgres://app:[redacted]@db.example/prod');
    expect(error!.err.message).toBe('POST refused for token xox?-[redacted] with Bearer sb_[redacted]');
    expect(error!.err.stack).toContain('Error: POST refused');
  });

  it("writes to a file in batches: a quiet logger's line is there within moments, and flush writes what waits at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statusbot-log-'));
    try {
      const file = join(dir, 'logs', 'statusbot.log');
      const logger = createLogger({ file, level: 'info' });
      logger.info('first', { n: 1 });
      const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
      await waitUntil(() => lines().length === 1);
      for (let n = 2; n <= 500; n++) logger.info('more', { n });
      logger.info('flat', {
        token: 'hush-hush-hush',
        path: '/a"b\\c',
        ok: true,
        none: null,
        nan: Number.NaN,
        skipped: undefined,
        durationMs: 12.05,
        delta: -0.001,
        title: 'Störung 🚨',
      });
      logger.info('nested', { headers: { authorization: 'Bearer abcdefghijkl' } });
      logger.flush?.();
      const records = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records.slice(0, 500).map((r) => r.n)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
      // Flat records are written directly, nested ones by pino: the same shape either way, secrets redacted.
      expect(records[500]).toEqual({
        level: 30,
        time: expect.any(Number),
        token: '[redacted]',
        path: '/a"b\\c',
        ok: true,
        none: null,
        nan: null,
        durationMs: 12.05,
        delta: -0.001,
        title: 'Störung 🚨',
        msg: 'flat',
      });
      expect(readFileSync(file, 'utf8')).toContain('"durationMs":12.05,"delta":-0.001,');
      expect(records[501]).toEqual({ level: 30, time: expect.any(Number), headers: { authorization: '[redacted]' }, msg: 'nested' });
      expect(readFileSync(file, 'utf8')).not.toContain('hush-hush');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('LOG_LEVEL chooses the level; an unknown level is named in the error', () => {
    expect(logLevelOf(undefined)).toBe('info');
    expect(logLevelOf('WARN')).toBe('warn');
    expect(() => logLevelOf('loud')).toThrow('LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, not "loud"');
    const log = capturedLogger(logLevelOf('warn'));
    log.logger.info('not shown');
    log.logger.warn('shown');
    expect(log.records().map((r) => r.msg)).toEqual(['shown']);
  });
});
