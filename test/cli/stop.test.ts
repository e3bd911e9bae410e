import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { startBlackHole, startTrickle } from '../fakes/fake-stalling-server.js';
import type { FakeStallingServer } from '../fakes/fake-stalling-server.js';
import { TEST_ENGINE, createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, acmeConfig, webhookEntry } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { ROOT, assertBuilt, cleanEnv, startCli } from './run-cli.js';
import type { Exit, Running } from './run-cli.js';

/** What the stop must keep to, whatever hangs. */
const STOP_LIMIT_MS = 10_000;

let dir: string;
let database: TestDatabase;
let hole: FakeStallingServer;
let trickle: FakeStallingServer;
const running: Running[] = [];
beforeEach(async () => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'statusbot-stop-'));
  database = await createTestDatabase();
  hole = await startBlackHole();
  trickle = await startTrickle();
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop(1_000);
  await hole.close();
  await trickle.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Everything that can keep a stop waiting, at once: Slack Socket Mode and the Discord gateway
 * connecting to endpoints that never answer, a vendor feed that trickles, a webhook that never
 * answers; their timeouts (60 s) are far beyond the stop's.
 */
function writeConfig(): string {
  const file = join(dir, 'statusbot.yml');
  writeFileSync(
    file,
    acmeConfig({
      top: `probes: { timeout_seconds: 60 }
ingestion: { interval_seconds: 60, timeout_seconds: 60 }
services:
  - urlname: trickling-vendor
    name: Trickling Vendor
    feed: { kind: statuspage, url: ${trickle.url}/vendor }
    poll: always`,
      subscribers: [webhookEntry(`${hole.url}/hooks/a`)],
      company: `    discord: { guild_id: "112233445566778899" }
    channels:
      - { discord: "223344556677889900", incidents: true }`,
    }),
  );
  return file;
}

const HANGING_PLATFORMS = () => ({
  SLACK_BOT_TOKEN: 'xoxb-stop-test',
  SLACK_APP_TOKEN: 'xapp-stop-test',
  SLACK_API_URL: `${hole.url}/api/`,
  DISCORD_TOKEN: 'stop-test-token',
  DISCORD_APPLICATION_ID: '900000000000000001',
  DISCORD_API_URL: `${hole.url}/discord`,
});

/** A server with every kind of work hanging: a webhook delivery and a feed read under way. */
async function busyServer(): Promise<{ server: Running; url: string }> {
  const server = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', database.path, '--config', writeConfig()], {
    cwd: dir,
    env: HANGING_PLATFORMS(),
  });
  running.push(server);
  const { url } = await server.listening();
  const res = await fetch(`${url}/api/v2/incidents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ service_id: 1001, title: 'Queued before the stop' }),
  });
  expect(res.status).toBe(201);
  // Slack and Discord connect to the black hole too: more than the webhook's one connection.
  await waitUntil(() => hole.received >= 3 && trickle.received >= 1, { what: 'the webhook, Slack, Discord and the feed under way' });
  return { server, url };
}

/** How the process ended, after the signals the test sent it (killed when it outlives the limit by far). */
async function exitOf(server: Running): Promise<Exit> {
  const timer = setTimeout(() => server.child.kill('SIGKILL'), STOP_LIMIT_MS + 5_000);
  try {
    return await server.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** The lines of output that are JSON log records, parsed; the others (the demo key's notice) aside. */
const logRecords = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; stillRunning?: string[] });

async function outboxRows() {
  const db = openDatabase({ path: database.path });
  try {
    return await db
      .selectFrom('outbox')
      .select(['stream', 'state', 'attempts', 'lease_until'])
      .where((eb) => eb.or([eb('stream', 'like', 'subscriber:%'), eb('stream', 'like', 'discord:%')]))
      .orderBy('stream')
      .execute();
  } finally {
    await db.destroy();
  }
}

describe('stopping statusbot serve', () => {
  it('SIGTERM ends it within 10 s whatever hangs; the queued notification stays queued, and the stop is logged as JSON', async () => {
    const { server, url } = await busyServer();
    const began = performance.now();
    server.child.kill('SIGTERM');
    const exit = await exitOf(server);
    const tookMs = performance.now() - began;

    expect(exit).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(STOP_LIMIT_MS);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    const stopLines = logRecords(server.out.stdout).filter((r) => /stopp/.test(r.msg));
    expect(stopLines.map((r) => r.msg)).toEqual(['SIGTERM: stopping; a second signal ends at once', 'stopped on SIGTERM']);
    // Nothing but JSON lines and the start's notice: no plain "shutting down", no Slack or Discord complaint about the stop.
    expect(server.out.stdout).not.toMatch(/^SIGTERM/m);
    expect(logRecords(server.out.stdout).filter((r) => r.level >= 50)).toEqual([]);
    // Not delivered, not a failed attempt: still queued, free for the next start.
    // The Discord message hung too (its client heeds no signal): its row is given back all the same.
    expect(await outboxRows()).toEqual([
      expect.objectContaining({ stream: expect.stringMatching(/^discord:/), state: 'pending', attempts: 0, lease_until: null }),
      expect.objectContaining({ stream: expect.stringMatching(/^subscriber:/), state: 'pending', attempts: 0, lease_until: null }),
    ]);
  });

  it('a second signal while stopping ends it at once, exit code 1, naming what still ran', async () => {
    const { server } = await busyServer();
    server.child.kill('SIGINT');
    await waitUntil(() => server.out.stdout.includes('SIGINT: stopping'), { what: 'the stop under way' });
    server.child.kill('SIGINT');
    const exit = await exitOf(server);
    // Without waiting for the work under way (which never ends here, and which the last log line names), nor for
    // the stop's deadline: ended by the second signal, which a busy machine only takes longer to handle at all.
    expect(exit.code).toBe(1);
    const records = logRecords(server.out.stdout);
    expect(records.filter((r) => /the stop took over/.test(r.msg))).toEqual([]);
    const last = records.at(-1)!;
    expect(last.msg).toBe('SIGINT while stopping: ending at once');
    expect(last.stillRunning).toContain('outbox deliveries');
  });
});

/** A TCP relay to PostgreSQL that the test cuts: the database becomes unreachable under a running server. */
async function startRelay(target: URL) {
  const sockets = new Set<Socket>();
  const pairs: [Socket, Socket][] = [];
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    pairs.push([client, upstream]);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cut: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      return closed;
    },
    /** Connections stay open and nothing more passes: every query under way, and every new one, waits forever. */
    stall: () => {
      server.close();
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe.skipIf(TEST_ENGINE !== 'postgres')('stopping with PostgreSQL unreachable', () => {
  it('SIGTERM ends it within 10 s', async () => {
    const relay = await startRelay(new URL(database.path));
    const server = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', relay.url], { cwd: dir });
    running.push(server);
    await server.listening();
    await relay.cut();
    const began = performance.now();
    server.child.kill('SIGTERM');
    const exit = await exitOf(server);
    expect(performance.now() - began).toBeLessThan(STOP_LIMIT_MS);
    expect(exit.signal).toBeNull();
    const stopLines = logRecords(server.out.stdout).filter((r) => /stop/.test(r.msg));
    expect(exit.code).toBe(0);
    expect(stopLines.map((r) => r.msg)).toEqual(['SIGTERM: stopping; a second signal ends at once', 'stopped on SIGTERM']);
  });

  it('a database that stops answering mid-stop: ends at the deadline, exit code 1, naming what hung', async () => {
    const relay = await startRelay(new URL(database.path));
    const server = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', relay.url], { cwd: dir });
    running.push(server);
    await server.listening();
    relay.stall();
    try {
      const began = performance.now();
      server.child.kill('SIGTERM');
      const exit = await exitOf(server);
      expect(performance.now() - began).toBeLessThan(STOP_LIMIT_MS);
      expect(exit).toEqual({ code: 1, signal: null });
      const last = logRecords(server.out.stdout).at(-1)!;
      // What hangs is the database, or the work waiting on it when it stalled (an outbox claim, a job's query).
      expect(last.msg).toMatch(/^the stop took over 8 s: ending with .+ still running$/);
      expect(last.stillRunning!.length).toBeGreaterThan(0);
      for (const part of last.stillRunning!) expect(['database', 'outbox deliveries', 'jobs', 'HTTP requests']).toContain(part);
    } finally {
      relay.close();
    }
  });
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/healthz`).then(
    (res) => res.ok,
    () => false,
  );

describe('npm start', () => {
  it('passes SIGTERM to the server: the port stops answering and no statusbot process remains', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: cleanEnv({ PORT: String(port), HOST: '127.0.0.1', STATUSBOT_DB: database.path }),
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    try {
      await waitUntil(() => answers(port), { what: `npm start answering on port ${port}` });
      npm.kill('SIGTERM');
      await waitUntil(async () => !(await answers(port)), { what: 'the port to stop answering', timeoutMs: STOP_LIMIT_MS });
      await exited;
      // The server was npm's child: had it outlived npm, it would still hold the port.
      await waitUntil(() => serverProcesses(port).then((pids) => pids.length === 0), { what: 'no statusbot process left', timeoutMs: STOP_LIMIT_MS });
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  });
});

/** Processes whose command line runs statusbot's serve with this port in their environment (Linux /proc). */
async function serverProcesses(port: number): Promise<number[]> {
  const { readdirSync, readFileSync } = await import('node:fs');
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes('cli.js\0serve')) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`PORT=${port}`)) found.push(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}
