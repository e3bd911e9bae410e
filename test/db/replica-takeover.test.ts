import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import { ACME_KEY, acmeConfig, webhookEntry } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startCli } from '../cli/run-cli.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** `statusbot serve` in a process of its own, jobs and delivery on; resolves once it listens. */
async function serveProcess(dbPath: string, hook: string): Promise<{ child: ChildProcess; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'statusbot-takeover-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'statusbot.yml'), acmeConfig({ top: 'rate_limit: { per_minute: 1000000 }', subscribers: [webhookEntry(`${hook}/hook`)] }));
  const running = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', dbPath, '--config', join(dir, 'statusbot.yml')], { cwd: dir });
  cleanup.push(() => {
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
  });
  return { child: running.child, url: (await running.listening()).url };
}

describe.skipIf(TEST_ENGINE !== 'postgres')('a replica killed with SIGKILL', () => {
  it('leaves its jobs and claimed outbox rows to a fresh replica once a renewal is missed, not when its leases run out', async () => {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const db = openDatabase({ path: database.path });
    cleanup.push(() => db.destroy());

    // The receiver holds the first replica's deliveries unanswered; once it is gone it answers at once, each once.
    let holding = true;
    const held: ServerResponse[] = [];
    const answered = new Map<string, number>();
    const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        if (holding) return void held.push(res);
        const id = String(req.headers['x-statusbot-delivery']);
        answered.set(id, (answered.get(id) ?? 0) + 1);
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    cleanup.push(() => {
      receiver.close();
      receiver.closeAllConnections();
    });
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    const first = await serveProcess(database.path, hook);
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${first.url}/api/v2/incidents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service_id: 1001, title: `Takeover ${i}` }),
      });
      expect(res.status).toBe(201);
    }
    // Busy: it runs its jobs, and holds the head of the stream, waiting for the receiver.
    await waitUntil(() => held.length > 0, { what: 'the first replica delivering' });
    const claimed = await db.selectFrom('outbox').select(['id', 'lease_until']).where('lease_until', 'is not', null).execute();
    expect(claimed.length).toBeGreaterThan(0);
    const leaseEnds = Math.min(...claimed.map((r) => Number(r.lease_until)));
    // Its first job slot may come after its first delivery: waited for, not assumed.
    const leaseHolders = async () => new Set((await db.selectFrom('job_leases').select('holder').execute()).map((r) => r.holder));
    await waitUntil(async () => (await leaseHolders()).size > 0, { what: 'the first replica running its jobs' });
    const deadHolders = await leaseHolders();
    expect(deadHolders.size).toBe(1);

    await new Promise<void>((ok) => {
      first.child.once('exit', () => ok());
      first.child.kill('SIGKILL');
    });
    const killedAt = Date.now();
    holding = false;
    for (const res of held) res.destroy();

    const second = await serveProcess(database.path, hook);
    const listening = Date.now() - killedAt;
    // Its jobs: slots after the kill, run by the fresh replica.
    await waitUntil(
      async () =>
        (await db.selectFrom('job_leases').select(['slot', 'holder']).execute()).some(
          (l) => !deadHolders.has(l.holder) && Date.parse(l.slot.slice(l.slot.indexOf('@') + 1)) > killedAt,
        ),
      { what: 'a job run by the fresh replica' },
    );
    const jobs = Date.now() - killedAt;
    const rows = () => db.selectFrom('outbox').select(['id', 'state', 'sent_at']).orderBy('id').execute();
    // What is asserted is when they were sent, on the database's clock; the wait only tells slow from never.
    await waitUntil(async () => (await rows()).every((r) => r.state === 'sent'), { what: 'every row delivered' });
    const delivered = Date.now() - killedAt;
    console.log(`after SIGKILL: serving in ${listening} ms, jobs in ${jobs} ms, claimed rows delivered in ${delivered} ms`);

    const sent = await rows();
    expect(sent).toHaveLength(5);
    expect([...answered.keys()].sort()).toEqual(sent.map((r) => String(r.id)).sort());
    expect([...answered.values()].every((n) => n === 1)).toBe(true);
    // The dead replica's claims were taken over while their leases still ran.
    expect(Math.max(...sent.map((r) => Number(r.sent_at)))).toBeLessThan(leaseEnds);
    expect(second.child.exitCode).toBeNull();
  });

  it('has PostgreSQL probe its connections, so that a replica whose machine is gone loses its sessions within seconds', async () => {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const db = openDatabase({ path: database.path });
    cleanup.push(() => db.destroy());
    const { rows } = await sql<{ idle: string; interval: string; count: string }>`select current_setting('tcp_keepalives_idle') as idle,
      current_setting('tcp_keepalives_interval') as interval, current_setting('tcp_keepalives_count') as count`.execute(db);
    expect(rows[0]).toEqual({ idle: '10', interval: '5', count: '3' });
  });
});
