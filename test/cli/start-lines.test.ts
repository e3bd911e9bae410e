import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { waitUntil } from '../helpers/wait-until.js';
import { runCli, startCli } from './run-cli.js';
import type { Running } from './run-cli.js';

let dir: string;
let database: TestDatabase | null = null;
const running: Running[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-start-lines-'));
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  await database?.drop();
  database = null;
  rmSync(dir, { recursive: true, force: true });
});

const jsonLines = (stdout: string) => stdout.split('\n').filter((l) => l !== '');

describe('serve with stdout in a pipe', () => {
  it('writes only JSON lines: the log, where to click, the demo key (once), and a new database made', async () => {
    if (TEST_ENGINE === 'postgres') database = await createTestDatabase({ migrated: false });
    const dbPath = database?.path ?? join(dir, 'data', 'statusbot.db');
    const s = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', dbPath], { cwd: dir });
    running.push(s);
    const { url } = await s.listening(60_000);
    await waitUntil(() => s.out.stdout.includes('"demo_api_key"'), { what: 'the demo key line' });
    expect((await s.stop()).code).toBe(0);

    const lines = jsonLines(s.out.stdout);
    const records = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line on stdout: ${line}`);
      }
    });
    expect(s.out.stdout).not.toMatch(/^(Home|API docs|Demo page):/m);
    const where = records.filter((r) => 'home' in r);
    expect(where).toEqual([
      expect.objectContaining({
        level: 30,
        home: `${url}/`,
        demo_page: `${url}/status/demo`,
        api_docs: `${url}/api/docs`,
        msg: expect.stringContaining(`Home: ${url}/`),
      }),
    ]);
    const withKey = records.filter((r) => 'demo_api_key' in r);
    expect(withKey).toHaveLength(1);
    const key = String(withKey[0]!.demo_api_key);
    expect(key).toMatch(/^sb_[\w-]+$/);
    expect(withKey[0]!.try).toBe(`curl -s -H "Authorization: Bearer ${key}" ${url}/api/v2/boards/00000000-0000-4000-8000-000000000001`);
    // The key is in that line only: nowhere in the log.
    expect(lines.filter((l) => l.includes(key))).toHaveLength(1);
    if (TEST_ENGINE === 'sqlite') {
      expect(records.filter((r) => String(r.msg).startsWith('created a new database'))).toEqual([
        expect.objectContaining({ level: 30, msg: `created a new database at ${dbPath}` }),
      ]);
    }
    expect(records.filter((r) => String(r.msg).startsWith('applied migrations 0001_init, '))).toHaveLength(1);
  }, 120_000);
});

describe('STATUSBOT_PUBLIC_URL', () => {
  it("names the address people reach the server at, over the config's public_url", async () => {
    if (TEST_ENGINE === 'postgres') database = await createTestDatabase({ migrated: false });
    const dbPath = database?.path ?? join(dir, 'data', 'statusbot.db');
    writeFileSync(join(dir, 'statusbot.yml'), 'public_url: "http://from-the-file.example.test"\n');
    const s = startCli(['serve', '--port', '0', '--host', '127.0.0.1', '--db', dbPath, '--config', 'statusbot.yml'], {
      cwd: dir,
      env: { STATUSBOT_PUBLIC_URL: 'https://status.example.test/' },
    });
    running.push(s);
    const { url } = await s.listening();
    await waitUntil(() => s.out.stdout.includes('"demo_api_key"'), { what: 'the demo key line' });
    const where = jsonLines(s.out.stdout)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => 'home' in r);
    expect(where).toMatchObject({ home: 'https://status.example.test/', api_docs: 'https://status.example.test/api/docs' });
    // The links the server gives are on that address too.
    const key = String(
      jsonLines(s.out.stdout)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((r) => 'demo_api_key' in r)?.demo_api_key,
    );
    const service = await fetch(`${url}/api/v2/services/demo-service`, { headers: { authorization: `Bearer ${key}` } });
    expect(service.status).toBe(200);
    expect(((await service.json()) as { data: { attributes: { tracker_url: string } } }).data.attributes.tracker_url).toBe(
      'https://status.example.test/services/demo-service',
    );
  });

  it('is refused, naming it, when it is not an http(s) URL', async () => {
    const dbPath = join(dir, 'data', 'statusbot.db');
    const res = await runCli(['serve', '--port', '0', '--db', dbPath], { cwd: dir, env: { STATUSBOT_PUBLIC_URL: 'status.example.test' } });
    expect(res).toMatchObject({ code: 1, stderr: 'statusbot: STATUSBOT_PUBLIC_URL must be an http(s) URL: "status.example.test"\n' });
    // Before anything is made.
    expect(existsSync(dbPath)).toBe(false);
  });
});
