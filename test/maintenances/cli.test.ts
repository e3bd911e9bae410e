import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

let dir: string;
let database: TestDatabase;
let server: TestServer | undefined;

const cli = (...args: string[]) => runCli([...args, '--db', database.path], { cwd: dir });
const HOUR = 3_600_000;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-maintenances-'));
  database = await createTestDatabase();
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('statusbot maintenances list', () => {
  it("prints the company's maintenances, upcoming and in progress first, one line each", async () => {
    server = await startTestServer({ dbPath: database.path });
    // The command reads the wall clock: times around now.
    const from = (hours: number) => new Date(Date.now() + hours * HOUR).toISOString();
    const post = async (body: Record<string, unknown>, key?: string) => {
      const res = await server!.api('POST', '/api/v2/maintenances', { body, key });
      expect(res.status, res.text).toBe(201);
      return res.body.data.id as string;
    };
    const later = await post({ title: 'Disk\tswap', service_ids: [1002], starts_at: from(48), ends_at: from(49) });
    const sooner = await post({ title: 'Database upgrade', service_ids: [1001, 1002], starts_at: from(24), ends_at: from(25) });
    await post({ title: 'Globex work', service_ids: [2001], starts_at: from(1), ends_at: from(2) }, GLOBEX_KEY);

    const res = await cli('maintenances', 'list', '--company', 'Acme');
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${sooner}\\tscheduled\\t\\S+\\t\\S+\\tacme-api,acme-web\\tDatabase upgrade$`));
    expect(lines[1]).toMatch(new RegExp(`^${later}\\tscheduled\\t\\S+\\t\\S+\\tacme-web\\tDisk swap$`));

    const globex = await cli('maintenances', 'list');
    expect(globex.code).not.toBe(0);
    expect(globex.stderr).toContain('maintenances list needs --company NAME');
  });
});
