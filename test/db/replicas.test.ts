import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_BOARD, ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/** Three statusbot processes' worth of servers on one PostgreSQL database, sharing the API and the background work. */
describe.skipIf(TEST_ENGINE !== 'postgres')('three replicas on one PostgreSQL database', () => {
  let database: TestDatabase;
  let target: Server;
  let hits = 0;
  let replicas: TestServer[] = [];
  beforeAll(async () => {
    target = createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const port = (target.address() as AddressInfo).port;
    const monitors = Array.from(
      { length: 20 },
      (_, i) => `      - { id: ${701 + i}, name: m${i}, url: "http://127.0.0.1:${port}/m${i}", probe_type: ping, interval_seconds: 60 }`,
    );
    const config = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    custom_monitors:
${monitors.join('\n')}
    boards:
      - { id: ${ACME_BOARD}, name: Vendors, urlname: vendors, services: [{ urlname: demo-service-ok }] }
    slack: { team_id: T1 }
    channels:
      - slack: C-DIGEST
        boards: [{ board: vendors, schedule: "0 9 * * *" }]
`;
    database = await createTestDatabase();
    // One after the other: each applies the config at start, idempotently.
    for (let i = 0; i < 3; i++) replicas.push(await startTestServer({ dbPath: database.path, config }));
  });
  afterAll(async () => {
    for (const r of replicas) await r.stop();
    replicas = [];
    await database?.drop();
    target?.close();
  });

  it('a write on one replica is seen by the very next read on every other, cached or not', async () => {
    const [a, b, c] = replicas as [TestServer, TestServer, TestServer];
    const created = await a.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Seen everywhere' } });
    const path = `/api/v2/incidents/${created.body.data.id}`;
    for (const r of [b, c]) {
      expect((await r.api('GET', path)).body.data.attributes.title).toBe('Seen everywhere');
      // Cached now on b and c.
      expect((await r.api('GET', path)).body.data.attributes.title).toBe('Seen everywhere');
    }
    expect((await a.api('PATCH', path, { body: { title: 'Changed on A' } })).status).toBe(200);
    const [onB, onC] = await Promise.all([b.api('GET', path), c.api('GET', path)]);
    expect(onB.body.data.attributes.title).toBe('Changed on A');
    expect(onC.body.data.attributes.title).toBe('Changed on A');
    const board = await c.api('GET', `/api/v2/boards/${ACME_BOARD}`);
    await b.api('POST', `/api/v2/boards/${ACME_BOARD}/services/demo-service-major`, { body: { tags: ['x'] } });
    const again = await c.api('GET', `/api/v2/boards/${ACME_BOARD}`);
    expect(again.body).not.toEqual(board.body);
  });

  it('a digest slot runs once across the three', async () => {
    const at = new Date('2026-11-23T09:00:00.000Z');
    const ran = await Promise.all(replicas.map((r) => r.scheduler.runSlot('digests', at)));
    expect(ran.filter(Boolean)).toHaveLength(1);
    const rows = await replicas[0]!.ctx.db.selectFrom('outbox').select('event').where('stream', '=', 'slack:T1:C-DIGEST').execute();
    expect(rows.map((r) => r.event)).toEqual(['board.digest']);
  });

  it('a round of monitor probes happens once across the three', async () => {
    // Each replica learns its schedule at a first tick; a minute later every monitor is due once, on all three.
    const t0 = replicas[0]!.clock.now().getTime();
    await Promise.all(replicas.map((r) => r.prober.tick(new Date(t0))));
    await Promise.all(replicas.map((r) => r.prober.idle()));
    hits = 0;
    const before = replicas.map((r) => r.prober.stats.started);
    await Promise.all(replicas.map((r) => r.prober.tick(new Date(t0 + 60_000))));
    await Promise.all(replicas.map((r) => r.prober.idle()));
    expect(hits).toBe(20);
    const started = replicas.map((r, i) => r.prober.stats.started - before[i]!);
    expect(started.reduce((x, y) => x + y, 0)).toBe(20);
  });
});
