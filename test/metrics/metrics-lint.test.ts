import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { acmeConfig, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/** Prometheus's own linter, from Debian's `prometheus` package; absent on a machine without it. */
const PROMTOOL = spawnSync('promtool', ['--version']).error ? null : 'promtool';
if (!PROMTOOL && process.env.CI === 'true') throw new Error('the metrics lint needs promtool (apt-get install prometheus; .ci/run installs it)');
if (!PROMTOOL) console.log('promtool not installed (Debian: apt-get install prometheus): `promtool check metrics` on /metrics skipped');

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

describe('GET /metrics as Prometheus lints it', () => {
  it.skipIf(!PROMTOOL)('passes `promtool check metrics` with no problem', async () => {
    const s = await startTestServer({ config: acmeConfig() });
    servers.push(s);
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'API errors' } });
    const text = await (await fetch(`${s.url}/metrics`)).text();
    const checked = spawnSync(PROMTOOL!, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${checked.stdout}${checked.stderr}`).toBe('');
    expect(checked.status).toBe(0);
  });
});
