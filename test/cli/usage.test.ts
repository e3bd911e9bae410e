import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plural } from '../../src/domain/plural.js';
import { TEST_ENGINE } from '../helpers/test-database.js';
import { CLI, assertBuilt, runCli } from './run-cli.js';
import { PATIENCE_MS } from '../helpers/patience.js';

let dir: string;
const cli = (args: string[], env?: NodeJS.ProcessEnv) => runCli(args, { cwd: dir, env });
const firstLine = (text: string) => text.split('\n')[0];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-usage-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// No database is opened: once is enough.
describe.skipIf(TEST_ENGINE !== 'sqlite')('a usage mistake is one line, then the usage of that command only', () => {
  it('an unknown option is named, with the option it is a slip of, also before the value it took', async () => {
    for (const args of [['serve', '--prot', '18041'], ['--prot', '18041'], ['--prot=18041']]) {
      const res = await cli(args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(firstLine(res.stderr)).toBe(`statusbot: unknown option --prot for serve; did you mean --port?`);
      expect(res.stderr).toContain('Usage: statusbot serve [--port N]');
      expect(res.stderr).not.toContain('statusbot migrate');
    }
    const key = await cli(['key', 'create', '--compnay', 'Acme']);
    expect(firstLine(key.stderr)).toBe('statusbot: unknown option --compnay for key create; did you mean --company?');
    const far = await cli(['migrate', '--frobnicate']);
    expect(firstLine(far.stderr)).toBe('statusbot: unknown option --frobnicate for migrate; it takes --db');
  });

  it('a missing option is one line and the usage of that command, not of every command', async () => {
    const res = await cli(['key', 'create']);
    expect(res.code).toBe(2);
    const lines = res.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('statusbot: key create needs --company NAME');
    expect(lines).toContain('Usage: statusbot key create --company NAME [--label L] [--db FILE|URL]');
    expect(res.stderr).toContain('--label L');
    expect(res.stderr).not.toContain('statusbot key list');
    expect(res.stderr).not.toContain('incident and status service');
    expect(lines.length).toBeLessThan(12);
  });

  it('an unknown command suggests the one it is a slip of', async () => {
    const res = await cli(['migrat']);
    expect(res.code).toBe(2);
    expect(firstLine(res.stderr)).toBe('statusbot: unknown command "migrat"; did you mean migrate?');
  });

  it("each command's help lists its own options only", async () => {
    const apply = await cli(['help', 'apply']);
    expect(apply.stdout).toContain('--config FILE');
    expect(apply.stdout).not.toContain('--port');
    expect((await cli(['apply', '--help'])).stdout).toBe(apply.stdout);
    const applyPort = await cli(['apply', '--port', '9000', '--config', 'x.yml']);
    expect(firstLine(applyPort.stderr)).toBe('statusbot: unknown option --port for apply; it takes --config, --db');
  });
});

describe.skipIf(TEST_ENGINE !== 'sqlite')('the usage and help answer without loading a command', () => {
  it("loads no database driver, chat client or HTTP client for --help, a command's help or a mistake", async () => {
    assertBuilt();
    // A process of its own: this one has loaded everything already.
    const script = `
      import Module from 'node:module';
      const { run } = await import(${JSON.stringify(pathToFileURL(CLI).href)});
      const io = { stdout: { write() {} }, stderr: { write() {} }, env: {} };
      const codes = [];
      for (const argv of [['--help'], ['serve', '--help'], ['key', 'create', '--compnay', 'Acme'], ['nope']]) codes.push(await run(argv, io));
      const loaded = Object.keys(Module._cache).filter((path) => /node_modules\\/(better-sqlite3|pg|undici|@slack|discord\\.js)\\//.test(path));
      console.log(JSON.stringify({ codes, loaded }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: PATIENCE_MS });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ codes: [0, 0, 2, 2], loaded: [] });
  });
});

describe.skipIf(TEST_ENGINE !== 'sqlite')('errors are one line with the statusbot: prefix, no stack', () => {
  it('a config file that is not there', async () => {
    const file = join(dir, 'nope.yml');
    const res = await cli(['apply', '--config', file, '--db', join(dir, 'statusbot.db')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`statusbot: cannot read config file ${file}: ENOENT: no such file or directory, open '${file}'\n`);
  });

  it('discord register with the Discord API unreachable names it and what to check', async () => {
    const port = await closedPort();
    const api = `http://127.0.0.1:${port}/api`;
    const res = await cli(['discord', 'register', '--guild', '42'], { DISCORD_TOKEN: 'x', DISCORD_APPLICATION_ID: '1', DISCORD_API_URL: api });
    expect(res.code).toBe(1);
    expect(res.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^statusbot: cannot reach the Discord API at ${api} \\(ECONNREFUSED.*\\); check the network, or DISCORD_API_URL$`)),
    ]);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('plural', () => {
  it('says one and many as a reader does', () => {
    expect(plural(1, 'company', 'companies')).toBe('1 company');
    expect(plural(0, 'company', 'companies')).toBe('0 companies');
    expect(plural(2, 'feed')).toBe('2 feeds');
  });
});
