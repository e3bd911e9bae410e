import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../cli/run-cli.js';
import type { Running } from '../cli/run-cli.js';
import { documentationPages } from '../helpers/docs.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { waitUntil } from '../helpers/wait-until.js';

const run = promisify(execFile);

/** The README's tour: its one shell block that starts with the demo key. */
const README = documentationPages().get('README.md')!;
const TOUR = /## A tour of the API[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)![1]!;
/** The README's way from the demo to one's own config: its YAML, then its commands. */
const OWN_CONFIG = /## From the demo to your own config[\s\S]*?```yaml\n([\s\S]*?)```[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)!;

/**
 * `curl` as the tour calls it, but each answer's status and body also go to
 * $LOG (one record per call), and what the tour captures stays the body.
 */
const RECORDING_CURL = `
curl() {
  local out
  out=$(command curl -w '\\n@status %{http_code}' "$@") || { echo "@status curl-failed $*" >> "$LOG"; return 1; }
  printf '%s\\n' "$out" >> "$LOG"
  printf '%s' "\${out%$'\\n'@status *}"
}
`;

let dir: string;
let database: TestDatabase;
let server: Running;
let base: string;
let key: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-tour-'));
  database = await createTestDatabase({ migrated: false });
  server = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', database.path], { cwd: dir });
  base = (await server.listening()).url;
  // In a pipe, the demo key is a JSON line of its own.
  key = await waitUntil(() => /"demo_api_key":"(sb_[^"]+)"/.exec(server.out.stdout)?.[1], { what: 'the demo key' });
});
afterAll(async () => {
  await server?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the README's tour of the API", () => {
  it('runs as written against a first start, every request answered with success', async () => {
    const script = TOUR.replace('KEY=sb_…', `KEY=${key}`).replaceAll('http://localhost:8080', base);
    const log = join(dir, 'answers.log');
    const shell = await run('bash', ['-euo', 'pipefail', '-c', `${RECORDING_CURL}\n${script}`], { env: { ...process.env, LOG: log } });
    const answers = readFileSync(log, 'utf8');
    const statuses = [...answers.matchAll(/^@status (\S+)$/gm)].map((m) => m[1]);
    // One answer per curl line of the tour, each a success.
    expect(statuses).toHaveLength([...TOUR.matchAll(/^curl |\$\(curl /gm)].length);
    expect(
      statuses.filter((s) => !['200', '201', '202', '204'].includes(s!)),
      answers,
    ).toEqual([]);
    expect(answers).toContain('"title":"Elevated error rate"');
    expect(answers).toContain('"resolved":true');
    expect(shell.stderr).toBe('');
  });

  it('then goes from the demo to its own config as the README says: the demo gone, the own page and key working', async () => {
    writeFileSync(join(dir, 'statusbot.yml'), OWN_CONFIG[1]!);
    const commands = OWN_CONFIG[2]!.split('\n').filter((line) => line.startsWith('npx statusbot '));
    expect(commands).toEqual(['npx statusbot apply --config statusbot.yml', 'npx statusbot key create --company Acme --label ci']);
    const outputs: string[] = [];
    for (const command of commands) {
      const res = await runCli([...command.slice('npx statusbot '.length).split(' '), '--db', database.path], { cwd: dir });
      expect(res.code, res.stderr).toBe(0);
      outputs.push(res.stdout);
    }
    expect(outputs[0]).toMatch(/^applied \S*statusbot\.yml: 1 company added, .*1 company removed/);
    const acmeKey = outputs[1]!.trim();
    // The running server sees it at once: the demo is gone, Acme is there.
    expect((await fetch(`${base}/api/v2/incidents`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    const created = await fetch(`${base}/api/v2/incidents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acmeKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: 1001, title: 'Checkout errors', status: 'minor', description: 'Some payments fail.' }),
    });
    expect(created.status).toBe(201);
    const page = await fetch(`${base}/status/acme`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Checkout errors');
    expect((await fetch(`${base}/status/demo`)).status).toBe(404);
  });
});
