import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY } from '../helpers/test-server.js';
import { runCli } from './run-cli.js';

let dir: string;
let database: TestDatabase;

const CONFIG = `public_url: https://status.acme.example
companies:
  - name: Acme
    api_keys: ["${ACME_KEY}"]
    custom_monitors:
      - { id: 601, name: Postgres port, probe_type: tcp, url: "tcp://db.acme.example:5432", interval_seconds: 30 }
      - { id: 602, name: API DNS, probe_type: dns, url: "dns://api.acme.example", record: A, expect: ["203.0.113.7"] }
      - { id: 603, name: API certificate, probe_type: tls, url: "https://api.acme.example", days_before_expiry: 14 }
      - { id: 604, name: Nightly backup, probe_type: heartbeat, interval_seconds: 86400, grace_seconds: 3600 }
      - { id: 605, name: Health JSON, probe_type: keyword, url: "https://api.acme.example/health", keyword: '"status":"ok"' }
`;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-monitors-'));
  database = await createTestDatabase();
});
afterEach(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('statusbot monitors list', () => {
  it("prints each monitor's kind and status, and the heartbeat's push address, the same after another apply", async () => {
    const config = join(dir, 'statusbot.yml');
    writeFileSync(config, CONFIG);
    const cli = (...args: string[]) => runCli([...args, '--db', database.path], { cwd: dir });
    expect((await cli('apply', '--config', config)).code).toBe(0);
    const listed = await cli('monitors', 'list', '--config', config);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '601\ttcp\tok\tPostgres port\ttcp://db.acme.example:5432',
      '602\tdns\tok\tAPI DNS\tdns://api.acme.example',
      '603\ttls\tok\tAPI certificate\thttps://api.acme.example',
    ]);
    expect(lines[3]).toMatch(/^604\theartbeat\tok\tNightly backup\thttps:\/\/status\.acme\.example\/api\/v2\/heartbeats\/[A-Za-z0-9_-]{32}$/);
    expect(lines[4]).toBe('605\tkeyword\tok\tHealth JSON\thttps://api.acme.example/health');

    writeFileSync(config, CONFIG.replace('grace_seconds: 3600', 'grace_seconds: 600'));
    const again = await cli('apply', '--config', config);
    expect(again.stdout).toContain('1 monitor changed');
    expect((await cli('monitors', 'list', '--config', config)).stdout.trim().split('\n')[3]).toBe(lines[3]);
  });

  it('refuses keys of another kind and addresses of the wrong form, at the monitor, changing nothing', async () => {
    const config = join(dir, 'statusbot.yml');
    const cli = (...args: string[]) => runCli([...args, '--db', database.path], { cwd: dir });
    const cases: [string, string][] = [
      ['url: "tcp://db.acme.example:5432"', 'url: "tcp://db.acme.example"'],
      ['url: "dns://api.acme.example", record: A', 'url: "https://api.acme.example", record: A'],
      ['probe_type: heartbeat, interval_seconds', 'probe_type: heartbeat, url: "https://x.example", interval_seconds'],
      ['probe_type: tcp, url', 'probe_type: tcp, record: A, url'],
      ['record: A', 'record: SOA'],
    ];
    const messages = [
      'custom_monitors[0].url must be tcp://host:port',
      'custom_monitors[1].url must be dns://name',
      'custom_monitors[3].url is not given for a heartbeat',
      'custom_monitors[0].record is only for probe_type dns',
      'custom_monitors[1].record',
    ];
    for (const [i, [from, to]] of cases.entries()) {
      writeFileSync(config, CONFIG.replace(from, to));
      const refused = await cli('apply', '--config', config);
      expect(refused.code, to).not.toBe(0);
      expect(refused.stderr).toContain(messages[i]);
    }
    const none = await cli('monitors', 'list', '--company', 'Acme');
    expect(none.stderr).toContain('Acme');
  });
});
