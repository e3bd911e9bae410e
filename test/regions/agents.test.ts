import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProbeAgent } from '../../src/agent/probe-agent.js';
import type { ProbeAgent } from '../../src/agent/probe-agent.js';
import { createServerLink } from '../../src/agent/server-link.js';
import { runningClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';
import { createProbeClient } from '../../src/probes/probe-client.js';
import { runCli, startCli } from '../cli/run-cli.js';
import type { Running } from '../cli/run-cli.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

/** A target that answers 500 to the probes of the regions in `failing` (agents name their region in a header, and in their User-Agent). */
async function startRegionalTarget(): Promise<{ url: string; failing: Set<string>; close(): Promise<void> }> {
  const failing = new Set<string>();
  const server: Server = createServer((req, res) => {
    const header = req.headers['x-statusbot-region'];
    const region = typeof header === 'string' ? header : /region ([^)\s]+)/.exec(req.headers['user-agent'] ?? '')?.[1];
    res.writeHead(region !== undefined && failing.has(region) ? 500 : 200);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
  return { url, failing, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const config = (url: string, quorum: number) => `
public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    regions: { quorum: ${quorum} }
    custom_monitors:
      - { id: 501, name: Homepage, url: "${url}", probe_type: ping, interval_seconds: 1 }
`;

let dir: string;
let database: TestDatabase;
let target: Awaited<ReturnType<typeof startRegionalTarget>>;
let s: TestServer | null;
const running: Running[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-agents-'));
  database = await createTestDatabase();
  target = await startRegionalTarget();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
  await s?.stop();
  s = null;
  await target.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

// Agents send ages, the server keeps its own time: a clock that runs, as a real server's does.
const start = (quorum: number, port?: number) =>
  startTestServer({ config: config(target.url, quorum), dbPath: database.path, clock: runningClock(Date.now()), ...(port ? { port } : {}) });

async function agentToken(region: string): Promise<string> {
  const res = await runCli(['key', 'create', '--agent', '--company', 'Acme', '--region', region, '--db', database.path], { cwd: dir });
  expect(res.code, res.stderr).toBe(0);
  return res.stdout.trim();
}

const homepage = async () => (await s!.api('GET', '/api/v2/custom_monitors')).body.data.find((m: any) => m.id === '501').attributes;
const regionRows = () => s!.ctx.db.selectFrom('monitor_regions').selectAll().where('monitor_id', '=', 501).orderBy('region').execute();

describe('statusbot agent, in processes of their own', () => {
  it('opens an incident only when two of three regions see the target fail, naming both, and resolves it when they recover', async () => {
    s = await start(2);
    for (const region of ['ap', 'eu', 'us']) {
      const token = await agentToken(region);
      running.push(startCli(['agent', '--server', s.url, '--token', token, '--region', region], { cwd: dir }));
    }
    await waitUntil(async () => (await regionRows()).length === 3, { what: 'a report from each of the three agents' });

    target.failing.add('eu');
    await waitUntil(async () => (await regionRows()).find((r) => r.region === 'eu' && r.consecutive_failures >= 3), {
      what: 'eu to see the target down',
    });
    expect(await homepage()).toMatchObject({ status: 'ok', ongoing_incidents: { data: [] } });

    target.failing.add('us');
    const down = await waitUntil(
      async () => {
        const m = await homepage();
        return m.status === 'down' && m;
      },
      { what: 'the monitor to go down' },
    );
    expect(down.ongoing_incidents.data.map((i: any) => i.attributes.description)).toEqual(['Down in eu: HTTP 500; us: HTTP 500']);

    target.failing.clear();
    await waitUntil(async () => (await homepage()).status === 'ok', { what: 'the monitor to recover' });
    const history = await s.api('GET', '/api/v2/custom_monitors/501/incidents');
    expect(history.body.data.map((i: any) => [i.attributes.description, i.attributes.resolved])).toEqual([['Down in eu: HTTP 500; us: HTTP 500', true]]);

    const listed = await runCli(['agents', 'list', '--db', database.path], { cwd: dir });
    expect(listed.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^\d+\tAcme\tap\tlast report \S+\treporting$/),
      expect.stringMatching(/^\d+\tAcme\teu\tlast report \S+\treporting$/),
      expect.stringMatching(/^\d+\tAcme\tus\tlast report \S+\treporting$/),
    ]);
  });
});

describe('a probe agent while its server is away', () => {
  let agent: ProbeAgent | null = null;
  afterEach(async () => {
    await agent?.stop();
    agent = null;
  });

  it('keeps probing, and sends what it saw once the server is back', async () => {
    s = await start(1);
    const port = Number(new URL(s.url).port);
    const token = await agentToken('eu');
    const userAgent = 'statusbot-monitor/test (agent; region eu)';
    const client = createProbeClient({ timeoutMs: 2_000, blockPrivateTargets: false, userAgent });
    const link = createServerLink({ server: s.url, token, userAgent, timeoutMs: 2_000 });
    agent = createProbeAgent({ link, client, region: 'eu', logger: silentLogger, reportMs: 200 });
    await agent.start();
    await waitUntil(async () => (await regionRows()).length === 1, { what: "the agent's first report" });

    await s.close();
    // The target fails while the server is away, and is up again before it returns.
    target.failing.add('eu');
    const held = agent.buffer;
    await waitUntil(() => held.size >= 3 && held.peek(100).filter((r) => !r.ok).length >= 3, { what: 'failures held by the agent' });
    target.failing.clear();
    await waitUntil(() => held.peek(1_000).at(-1)?.ok, { what: 'a success held after them' });

    s = await start(1, port);
    await waitUntil(async () => held.size === 0 && (await s!.api('GET', '/api/v2/custom_monitors/501/incidents')).body.data.length === 1, {
      what: 'the held results to reach the server',
    });
    const history = await s.api('GET', '/api/v2/custom_monitors/501/incidents');
    expect(history.body.data.map((i: any) => [i.attributes.description, i.attributes.resolved])).toEqual([['Down in eu: HTTP 500', true]]);
    expect(await homepage()).toMatchObject({ status: 'ok' });
    await client.close();
    await link.close();
  });
});

describe('a probe agent with private targets blocked', () => {
  it("refuses them as the servers' probes do, and reports why", async () => {
    s = await start(1);
    const token = await agentToken('eu');
    const userAgent = 'statusbot-monitor/test (agent; region eu)';
    const client = createProbeClient({ timeoutMs: 2_000, blockPrivateTargets: true, userAgent });
    const link = createServerLink({ server: s.url, token, userAgent, timeoutMs: 2_000 });
    const agent = createProbeAgent({ link, client, region: 'eu', logger: silentLogger, reportMs: 200 });
    try {
      await agent.start();
      const down = await waitUntil(
        async () => {
          const m = await homepage();
          return m.status === 'down' && m;
        },
        { what: 'the blocked target to count as down' },
      );
      expect(down.ongoing_incidents.data[0].attributes.description).toBe('Down in eu: blocked private target 127.0.0.1');
    } finally {
      await agent.stop();
      await client.close();
      await link.close();
    }
  });
});
