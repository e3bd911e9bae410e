import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
