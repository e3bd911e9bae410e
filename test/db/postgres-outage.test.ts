import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/**
 * A TCP relay in front of the PostgreSQL server that the test can cut and
 * restore: an outage as statusbot sees it when its database goes away.
 */
async function startRelay(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const close = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('error', close).on('close', close);
        upstream.on('error', close).on('close', close);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  await open();
  return {
    get port() {
      return port;
    },
    async cut() {
      // close() waits for every connection to end: end them (an idle pool's and the change feed's never end by themselves).
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      for (const s of sockets) s.destroy();
      sockets.clear();
      await closed;
    },
    restore: open,
  };
}

describe.skipIf(TEST_ENGINE !== 'postgres')('PostgreSQL going away and coming back', () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let s: TestServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.path);
    relay = await startRelay({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(relay.port);
    s = await startTestServer({ dbPath: url.toString() });
  });
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
  });

  it('answers 503 on /readyz (200 on /healthz: alive) and with the error shape while it is down, loses nothing acknowledged, and recovers', async () => {
    const before = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Before the outage' } });
    expect(before.status).toBe(201);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);

    await relay.cut();
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'not ready', reason: 'the database cannot be reached' });
    // Alive all the same: nothing a restart would mend.
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    const write = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'During the outage' } });
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toBe('5');
    expect(write.body).toEqual({
      errors: [{ status: 503, title: 'Service unavailable', detail: 'The database cannot be reached right now; nothing was changed. Please try again.' }],
    });
    expect((await s.api('GET', `/api/v2/services/acme-api/incidents`, { key: ACME_KEY })).status).toBe(503);

    await relay.restore();
    await expect.poll(async () => (await fetch(`${s.url}/readyz`)).status).toBe(200);
    const list = await s.api('GET', '/api/v2/services/acme-api/incidents');
    expect(list.status).toBe(200);
    expect(list.body.data.map((i: any) => i.attributes.title)).toEqual(['Before the outage']);
    const after = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'After the outage' } });
    expect(after.status).toBe(201);
  });
});
