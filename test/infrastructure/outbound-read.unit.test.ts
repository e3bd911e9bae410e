import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createProbeClient } from '../../src/probes/probe-client.js';
import { StoppingError, createOutboundDispatcher, describeNetworkError, pathOf, readLimited, requestScope } from '../../src/infrastructure/outbound.js';
import { startEncodedStall, startTrickle } from '../fakes/fake-stalling-server.js';
import type { BodyEncoding, FakeStallingServer } from '../fakes/fake-stalling-server.js';

const TIMEOUT_MS = 400;

/** One read as the feed poller makes it: asks for compression, decodes, and tells why it failed. */
async function readFeed(url: string, options: { timeoutMs?: number } = {}): Promise<{ reason: string; ms: number }> {
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const { dispatcher, close } = createOutboundDispatcher({ timeoutMs, blockPrivateTargets: false, followRedirects: true });
  const started = Date.now();
  const { signal, release } = requestScope(timeoutMs);
  try {
    const response = await dispatcher.request({
      origin: new URL(url).origin,
      path: pathOf(url),
      method: 'GET',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
      signal,
    });
    await readLimited(response, 1024 * 1024);
    return { reason: 'read whole', ms: Date.now() - started };
  } catch (error) {
    return { reason: describeNetworkError(error, timeoutMs, signal), ms: Date.now() - started };
  } finally {
    release();
    await close();
  }
}

describe('an outbound read whose body stalls', () => {
  const servers: FakeStallingServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it.each<[string, () => Promise<FakeStallingServer>]>([
    ['identity, trickling', () => startTrickle()],
    ...(['gzip', 'deflate', 'br'] as BodyEncoding[]).flatMap((encoding): [string, () => Promise<FakeStallingServer>][] => [
      [`${encoding}, stalled mid-body`, () => startEncodedStall(encoding)],
      [`${encoding}, trickling`, () => startEncodedStall(encoding, { trickle: true })],
    ]),
  ])('ends by its deadline: %s', async (_what, start) => {
    const server = await start();
    servers.push(server);
    const { reason, ms } = await readFeed(server.url);
    expect(reason).toBe('timeout after 0.4 s');
    // One deadline for headers and body together, not one per chunk.
    expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
  });

  it('ends at once when statusbot stops during a stalled gzip read', async () => {
    const server = await startEncodedStall('gzip');
    servers.push(server);
    const stop = new AbortController();
    const { dispatcher, close } = createOutboundDispatcher({ timeoutMs: 30_000, blockPrivateTargets: false });
    try {
      const response = await dispatcher.request({ origin: server.url, path: '/', method: 'GET', signal: requestScope(30_000, stop.signal).signal });
      expect(response.headers['content-encoding']).toBe('gzip');
      const read = readLimited(response, 1024 * 1024);
      const stoppedAt = Date.now();
      stop.abort(new StoppingError());
      await expect(read).rejects.toThrow('dropped: statusbot is stopping');
      expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    } finally {
      await close();
    }
  });

  it('a keyword probe of a gzip body that stalls is down by its timeout', async () => {
    const server = await startEncodedStall('gzip');
    servers.push(server);
    const probes = createProbeClient({ timeoutMs: TIMEOUT_MS, blockPrivateTargets: false, userAgent: 'statusbot-test' });
    try {
      const started = Date.now();
      expect(await probes.probe({ url: `${server.url}/`, probeType: 'keyword', keyword: 'Sign in' })).toEqual({
        ok: false,
        reason: 'timeout after 0.4 s',
      });
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_000);
    } finally {
      await probes.close();
    }
  });
});

describe('an outbound read of a body over its limit', () => {
  it('is refused by its Content-Length before the body is read, and by the bytes read when it declares none', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const server = createServer((req, res) => {
      if (req.url === '/declared') {
        // 64 MiB declared, one chunk sent, then nothing: only a reader that trusts the length answers before its deadline.
        res.writeHead(200, { 'content-length': 1024 * chunk.length });
        res.write(chunk);
        return;
      }
      res.writeHead(200);
      for (let i = 0; i < 32; i++) res.write(chunk);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { dispatcher, close } = createOutboundDispatcher({ timeoutMs: 10_000, blockPrivateTargets: false });
    try {
      for (const path of ['/declared', '/chunked']) {
        const started = Date.now();
        const response = await dispatcher.request({ origin, path, method: 'GET' });
        await expect(readLimited(response, 1024 * 1024), path).rejects.toThrow('the body is over 1024 KiB');
        expect(Date.now() - started, path).toBeLessThan(5_000);
      }
    } finally {
      await close();
      server.closeAllConnections();
      server.close();
    }
  });
});
