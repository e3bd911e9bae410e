import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type TargetMode = 'ok' | 'fail' | 'slow' | 'wrong-body';

/**
 * An HTTP target for probes on 127.0.0.1, switchable between healthy, 503, slow and a body without the keyword;
 * `/redirect/N` redirects N times to `/health`, `/loop` to itself, `/moved-nowhere` is a 302 without Location.
 */
export interface FakeTarget {
  url: string;
  mode: TargetMode;
  /** Requests seen, with their User-Agent. */
  hits: { path: string; userAgent: string | undefined }[];
  close(): Promise<void>;
}

export async function startFakeTarget(options: { slowMs?: number } = {}): Promise<FakeTarget> {
  const target = { mode: 'ok' as TargetMode, hits: [] as FakeTarget['hits'] };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    target.hits.push({ path, userAgent: req.headers['user-agent'] });
    const redirect = /^\/redirect\/(\d+)$/.exec(path);
    if (redirect) {
      const left = Number(redirect[1]);
      res.writeHead(302, { location: left > 1 ? `/redirect/${left - 1}` : '/health' });
      res.end();
      return;
    }
    if (path === '/loop') {
      res.writeHead(302, { location: '/loop' });
      res.end();
      return;
    }
    if (path === '/moved-nowhere') {
      res.writeHead(302);
      res.end();
      return;
    }
    if (path === '/big') {
      // The keyword sits past the first MiB: a probe must not find it.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`${'x'.repeat(1024 * 1024 + 10)}Sign in`);
      return;
    }
    switch (target.mode) {
      case 'ok':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body><a href="/login">Sign in</a></body></html>');
        return;
      case 'fail':
        res.writeHead(503);
        res.end('down');
        return;
      case 'wrong-body':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>Maintenance</body></html>');
        return;
      case 'slow':
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(200);
          res.end('late');
        }, options.slowMs ?? 3_000).unref();
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(target, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
