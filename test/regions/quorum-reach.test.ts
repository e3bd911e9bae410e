import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { manualClock } from '../../src/domain/clock.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { recordingLogger } from '../helpers/loggers.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

// Nothing listens on port 9: the server's own region sees the monitor fail.
const CONFIG = `
public_url: http://status.test
region: hq
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    regions: { quorum: 2 }
    custom_monitors:
      - { id: 501, name: Homepage, url: "http://127.0.0.1:9/health", probe_type: ping, interval_seconds: 60 }
  - name: Globex
    plan: business
    api_keys: ["globex-key-1"]
    custom_monitors:
      - { id: 601, name: Globex home, url: "http://127.0.0.1:9/", probe_type: ping }
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-quorum-'));
  writeFileSync(join(dir, 'statusbot.yml'), CONFIG);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const agentToken = async (dbPath: string, region: string) => {
  const res = await runCli(['key', 'create', '--agent', '--company', 'Acme', '--region', region, '--db', dbPath], { cwd: dir });
  expect(res.code, res.stderr).toBe(0);
  return { token: res.stdout.trim(), id: /token (\d+)/.exec(res.stderr)![1]! };
};

describe('a quorum larger than the regions that can report', () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await database.drop();
  });

  it('is warned of by statusbot apply, naming the company, until an agent region holds a token', async () => {
    const cli = (...args: string[]) => runCli([...args, '--db', database.path], { cwd: dir });
    const first = await cli('apply', '--config', 'statusbot.yml');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      "warning: Acme's quorum of 2 regions is more than can report: this server's region and no agent region; " +
        'statusbot key create --agent --company Acme --region NAME adds one. Its monitors cannot go down until 2 regions report.',
    );
    // Globex's quorum is 1: nothing to say of it.
    expect(first.stderr).not.toContain('Globex');

    const eu = await agentToken(database.path, 'eu');
    const covered = await cli('apply', '--config', 'statusbot.yml');
    expect(covered.code).toBe(0);
    expect(covered.stderr).not.toContain('warning');

    // A revoked token holds no region.
    expect((await cli('key', 'revoke', eu.id)).code).toBe(0);
    expect((await cli('apply', '--config', 'statusbot.yml')).stderr).toMatch(/^warning: Acme's quorum of 2 regions is more than can report/m);
  });
});

describe('a quorum larger than the regions reporting now', () => {
  let s: TestServer;
  const log = recordingLogger();
  const cli = (...args: string[]) => runCli([...args, '--db', s.dbPath], { cwd: dir });
  const quorumLines = () => log.records.filter((r) => /^monitor \d+ .*(cannot go down|can go down again)/.test(r.message));
  const report = (token: string, results: unknown[]) =>
    fetch(`${s.url}/api/v2/agent/results`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ results }),
    });
  const fail = (ageMs = 0) => ({ monitor_id: 501, ok: false, reason: 'HTTP 500', latency_ms: 12, age_ms: ageMs });
  const outOfReach = async () => /statusbot_region_quorum_out_of_reach\{company="Acme"\} (\d)/.exec(await (await fetch(`${s.url}/metrics`)).text())?.[1];

  beforeEach(async () => {
    log.records.length = 0;
    // The CLI reads staleness against the time it really is: the server's clock starts there.
    s = await startTestServer({ config: CONFIG, clock: manualClock(Date.now()), logger: log });
  });
  afterEach(async () => {
    await s.stop();
  });

  it('is warned of by statusbot agents list, by /metrics, and in the log once per change, not per probe', async () => {
    // The server's start applied the config, and said it.
    expect(log.records.some((r) => r.level === 'warn' && r.message.startsWith("Acme's quorum of 2 regions is more than can report"))).toBe(true);
    const eu = await agentToken(s.dbPath, 'eu');

    // eu holds a token but never reported.
    const listed = await cli('agents', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^\d+\tAcme\teu\tno report yet\tstale$/m);
    expect(listed.stderr).toContain(
      "warning: Acme's quorum of 2 regions is more than report now: this server's region and no agent region, stale: eu. " +
        'Its monitors cannot go down until 2 regions report.',
    );
    expect(await outOfReach()).toBe('1');

    // The server's region sees it fail again and again: one warning, however many probes.
    for (let i = 0; i < 3; i++) await s.prober.probeAll();
    expect((await s.api('GET', '/api/v2/custom_monitors')).body.data.find((m: any) => m.id === '501').attributes.status).toBe('ok');
    expect(quorumLines()).toEqual([
      expect.objectContaining({
        level: 'warn',
        message:
          'monitor 501 (Homepage) of Acme cannot go down: 1 region reports, fewer than its quorum of 2 (regions.quorum in the config; statusbot agents list shows the agents)',
      }),
    ]);

    // eu reports: two regions, the quorum is met, and the monitor goes down.
    expect((await report(eu.token, [fail(1_000), fail()])).status).toBe(202);
    expect((await s.api('GET', '/api/v2/custom_monitors')).body.data.find((m: any) => m.id === '501').attributes.status).toBe('down');
    expect(quorumLines().map((r) => [r.level, r.message])).toEqual([
      ['warn', expect.stringContaining('cannot go down')],
      ['info', 'monitor 501 (Homepage) of Acme can go down again: 2 regions report, its quorum is 2'],
    ]);
    const again = await cli('agents', 'list');
    expect(again.stdout).toMatch(/^\d+\tAcme\teu\tlast report \S+\treporting$/m);
    expect(again.stderr).not.toContain('warning');
    expect(await outOfReach()).toBe('0');
  });
});
