import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../cli/run-cli.js';
import type { Running } from '../cli/run-cli.js';
import { documentationPages } from '../helpers/docs.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { waitUntil } from '../helpers/wait-until.js';

const run = promisify(execFile);

/** The README's tour: its one shell block that starts with the demo key. */
const TOUR = /## A tour of the API[\s\S]*?```sh\n([\s\S]*?)```/.exec(documentationPages().get('README.md')!)![1]!;

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
  key = await waitUntil(() => /^ {2}(sb_\S+)$/m.exec(server.out.stdout)?.[1], { what: 'the demo key' });
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
});
