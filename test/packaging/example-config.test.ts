import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/** The config a newcomer copies: it must apply exactly as shipped. */
const EXAMPLE = fileURLToPath(new URL('../../examples/statusbot.yml', import.meta.url));
const EXAMPLE_TEXT = readFileSync(EXAMPLE, 'utf8');
const BOARD = '3f6c1a52-8d4e-4b7a-9c21-5e0d7b9a4f10';

/**
 * The example with one of its commented-out blocks turned on, as a reader does it:
 * from the line `first` on, each following commented line at the same indent.
 */
function uncommented(text: string, first: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(first);
  if (start < 0) throw new Error(`the example has no line "${first}"`);
  const indent = first.slice(0, first.indexOf('#'));
  for (let i = start; i < lines.length && lines[i]!.startsWith(`${indent}# `); i++) {
    lines[i] = indent + lines[i]!.slice(indent.length + 2);
  }
  return lines.join('\n');
}

let dir: string;
let database: TestDatabase;
const servers: TestServer[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-example-'));
  database = await createTestDatabase({ migrated: false });
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('examples/statusbot.yml', () => {
  it('applies as shipped on a fresh database, and its status page and board answer', async () => {
    // A fresh database is made by migrate (or serve): apply refuses a path that holds none.
    expect((await runCli(['migrate', '--db', database.path], { cwd: dir })).code).toBe(0);
    const applied = await runCli(['apply', '--config', EXAMPLE, '--db', database.path], { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(
      /^applied .*statusbot\.yml: 1 company added, \d+ services added, 2 monitors added, 1 board added, 1 status page added, 2 subscribers added\n$/,
    );

    const created = await runCli(['key', 'create', '--company', 'Northwind', '--db', database.path], { cwd: dir });
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();

    const server = await startTestServer({ dbPath: database.path, config: EXAMPLE_TEXT });
    servers.push(server);
    const page = await fetch(`${server.url}/status/northwind`);
    const html = await page.text();
    expect(page.status, html).toBe(200);
    for (const name of ['Northwind status', 'Web shop', 'Checkout API', 'Order emails', 'Shop home page', 'Checkout API health', 'Stripe']) {
      expect(html).toContain(name);
    }
    // Not probed yet: said so, never "Up".
    expect(html).toContain('No data yet');

    const board = await server.api('GET', `/api/v2/boards/${BOARD}`, { key });
    expect(board.status, board.text).toBe(200);
    expect(board.text).toContain('"name":"Vendors"');
    for (const vendor of ['stripe', 'aws', 'cloudflare', 'postmark', 'github']) expect(board.text).toContain(`"urlname":"${vendor}"`);
  });

  it('applies with its mail and chat lines uncommented, as the comments tell', async () => {
    const turnedOn = uncommented(uncommented(EXAMPLE_TEXT, '# smtp:'), '    # slack:');
    expect(turnedOn).toMatch(/^ {4}channels:$/m);
    const file = join(dir, 'statusbot.yml');
    writeFileSync(file, turnedOn);
    expect((await runCli(['migrate', '--db', database.path], { cwd: dir })).code).toBe(0);
    const applied = await runCli(['apply', '--config', file, '--db', database.path], { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('2 chat workspaces added, 5 channel subscriptions added');
  });
});
