import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordRegionLatencies } from '../../src/domain/monitors/probe-results.js';
import { runCli } from '../cli/run-cli.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';

const CONFIG = `
region: from-config
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_monitors:
      - { id: 501, name: Homepage, url: "http://127.0.0.1:9/health", probe_type: ping }
`;

let dir: string;
let database: TestDatabase;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-region-'));
  database = await createTestDatabase();
  writeFileSync(join(dir, 'statusbot.yml'), CONFIG);
});
afterEach(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the server's own region", () => {
  it('is named by STATUSBOT_REGION over the config, in the incidents it opens', async () => {
    const env = { STATUSBOT_REGION: 'paris' };
    for (let i = 0; i < 2; i++) {
      const res = await runCli(['jobs', 'run', 'monitors', '--config', 'statusbot.yml', '--db', database.path], { cwd: dir, env });
      expect(res.code, res.stderr).toBe(0);
    }
    const s = await startTestServer({ config: CONFIG, dbPath: database.path });
    try {
      const monitor = (await s.api('GET', '/api/v2/custom_monitors')).body.data[0].attributes;
      expect(monitor.ongoing_incidents.data[0].attributes.description).toMatch(/^Down in paris: /);
    } finally {
      await s.stop();
    }
  });

  it('refuses a region name on more than one line', async () => {
    const res = await runCli(['jobs', 'run', 'monitors', '--config', 'statusbot.yml', '--db', database.path], {
      cwd: dir,
      env: { STATUSBOT_REGION: 'a\nb' },
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^statusbot: STATUSBOT_REGION must be on one line/);
  });
});

describe('response times per region', () => {
  it('are written however many were kept through an outage, never over a held failure or a later time', async () => {
    const s = await startTestServer({
      config: CONFIG.replace('probe_type: ping }', 'probe_type: ping }\n      - { id: 502, name: API, url: "http://127.0.0.1:9/api", probe_type: ping }'),
      dbPath: database.path,
    });
    try {
      const at = Date.now();
      // 502 holds a failure seen in this region: its row is the failing probe's to write.
      await s.ctx.db
        .insertInto('monitor_regions')
        .values({ monitor_id: 502, region: 'paris', consecutive_failures: 1, reason: 'HTTP 500', latency_ms: null, checked_at: at - 1_000 })
        .execute();
      // More than PostgreSQL takes parameters in one statement: every monitor of a large server, kept while the database was away.
      const kept = new Map<number, { latencyMs: number; at: number }>();
      for (let id = 100_000; id < 170_000; id++) kept.set(id, { latencyMs: 5, at });
      kept.set(501, { latencyMs: 42, at });
      kept.set(502, { latencyMs: 17, at });
      await recordRegionLatencies(s.ctx, 'paris', kept);
      await recordRegionLatencies(s.ctx, 'paris', new Map([[501, { latencyMs: 7, at: at - 60_000 }]]));
      const rows = await s.ctx.db
        .selectFrom('monitor_regions')
        .select(['monitor_id', 'latency_ms', 'consecutive_failures'])
        .where('region', '=', 'paris')
        .orderBy('monitor_id')
        .execute();
      expect(rows).toEqual([
        { monitor_id: 501, latency_ms: 42, consecutive_failures: 0 },
        { monitor_id: 502, latency_ms: null, consecutive_failures: 1 },
      ]);
    } finally {
      await s.stop();
    }
  });
});
