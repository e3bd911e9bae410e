import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { runningClock } from '../../src/domain/clock.js';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, acmeConfig, startTestServer, webhookEntry } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

/** The compiled CLI: `npm test` builds it first (pretest). */
const CLI = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'dist', 'src', 'cli.js');
const SECRET = 'crash-test-secret-0123';

const config = (hook: string) => acmeConfig({ top: 'rate_limit: { per_minute: 1000000 }', subscribers: [webhookEntry(`${hook}/hook`, SECRET)] });

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** `statusbot serve` in a process of its own, on the test database; resolves once it listens. */
async function serveProcess(dbPath: string, hook: string): Promise<{ child: ChildProcess; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'statusbot-crash-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'statusbot.yml'), config(hook));
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', dbPath, '--config', join(dir, 'statusbot.yml')], { cwd: dir });
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  const url = await new Promise<string>((ok, fail) => {
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) ok(m[1]!.replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => fail(new Error(`serve exited (${code}) before listening: ${out}`)));
  });
  return { child, url };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((ok) => {
    child.once('exit', () => ok());
    child.kill('SIGKILL');
  });

describe.skipIf(TEST_ENGINE !== 'postgres')('kill -9 of a replica', () => {
  let database: TestDatabase;

  it('under write load loses no acknowledged write', async () => {
    database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const { child, url } = await serveProcess(database.path, 'http://127.0.0.1:9');
    const acknowledged: { id: string; title: string }[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const title = `w${w}-${n}`;
        try {
          const res = await fetch(`${url}/api/v2/incidents`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ service_id: 1001, title }),
          });
          if (res.status === 201) acknowledged.push({ id: ((await res.json()) as { data: { id: string } }).data.id, title });
        } catch {
          return; // The process is gone.
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    // Killed in the middle of the load, once it has acknowledged enough writes to tell.
    await waitUntil(() => acknowledged.length > 50, { what: 'fifty acknowledged writes' });
    await killed(child);
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(50);

    const db = openDatabase({ path: database.path });
    try {
      const stored = await db.selectFrom('incidents').select(['id', 'title']).execute();
      const byId = new Map(stored.map((r) => [String(r.id), r.title]));
      for (const a of acknowledged) expect(byId.get(a.id), `incident ${a.id}`).toBe(a.title);
    } finally {
      await db.destroy();
    }
  });

  it('holding outbox leases: the others deliver every row, each confirmed once', async () => {
    database = await createTestDatabase();
    cleanup.push(() => database.drop());
    // The receiver holds the first replica's deliveries unanswered; once it is gone it answers at once.
    let holding = true;
    const held: ServerResponse[] = [];
    const answered = new Map<string, number>();
    const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        if (holding) {
          held.push(res);
          return;
        }
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

    const { child, url } = await serveProcess(database.path, hook);
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${url}/api/v2/incidents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service_id: 1001, title: `Lease ${i}` }),
      });
      expect(res.status).toBe(201);
    }
    // The first replica has taken the row at the head of the stream and is waiting for the receiver.
    await expect.poll(() => held.length).toBeGreaterThan(0);
    await killed(child);
    holding = false;
    for (const res of held) res.destroy();

    // Another replica, whose clock is past the dead one's leases (60 s), takes the rows over.
    const other = await startTestServer({
      dbPath: database.path,
      config: config(hook),
      clock: runningClock(Date.now() + 61_000),
      delivery: { enabled: true, baseDelayMs: 20, maxDelayMs: 200, pollMs: 20 },
    });
    cleanup.push(() => other.stop());
    const rows = () => other.ctx.db.selectFrom('outbox').select(['id', 'state']).orderBy('id').execute();
    await expect.poll(async () => (await rows()).every((r) => r.state === 'sent')).toBe(true);
    const sent = await rows();
    expect(sent).toHaveLength(5);
    expect([...answered.keys()].sort()).toEqual(sent.map((r) => String(r.id)).sort());
    expect([...answered.values()].every((n) => n === 1)).toBe(true);
  });
});
