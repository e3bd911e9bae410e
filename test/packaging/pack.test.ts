import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT, spawnCli, startCli } from '../cli/run-cli.js';
import type { Running } from '../cli/run-cli.js';
import { TEST_ENGINE } from '../helpers/test-database.js';
import { waitUntil } from '../helpers/wait-until.js';
import { PATIENCE_MS } from '../helpers/patience.js';

const exec = promisify(execFile);

// Packing and installing do not depend on the engine: once, on a SQLite file, is enough.
const describeOnce = describe.skipIf(TEST_ENGINE !== 'sqlite');

/** The nested npm reads its own config files; nothing of the `npm test` that runs this file leaks into it. */
function npmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig', 'npm_config_registry']);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) || keep.has(name)));
  return { ...env, npm_config_update_notifier: 'false', ...extra };
}

/**
 * better-sqlite3 installs a prebuilt binary from GitHub, else compiles SQLite for
 * a minute or two. The binary `npm ci` made for this checkout (same version, same
 * Node ABI) is handed to its installer as a local prebuild, so the install runs
 * its real script in seconds; without one (another version, musl), it compiles.
 */
async function localPrebuilds(dir: string): Promise<string | null> {
  const pkg = join(ROOT, 'node_modules', 'better-sqlite3');
  const binary = join(pkg, 'build', 'Release', 'better_sqlite3.node');
  const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;
  if (!existsSync(binary) || (process.platform === 'linux' && !glibc)) return null;
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  mkdirSync(dir, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await exec('tar', ['-czf', join(dir, name), '-C', pkg, 'build/Release/better_sqlite3.node']);
  return dir;
}

function onPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return null;
}

let work: string;
let files: string[];
/** `{prefix}/bin/statusbot` of the global install. */
let bin: string;
let installed: string;
const running: Running[] = [];

describeOnce('the npm package', () => {
  beforeAll(async () => {
    assertBuilt();
    work = mkdtempSync(join(tmpdir(), 'statusbot-pack-'));
    // `prepare` builds at pack time; npm test built dist/ just before (pretest), so the tests pack it as it is.
    const packed = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, env: npmEnv() });
    const [report] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    files = report!.files.map((f) => f.path);
    const prefix = join(work, 'prefix');
    const prebuilds = await localPrebuilds(join(work, 'prebuilds'));
    await exec(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--allow-scripts=better-sqlite3',
        join(work, report!.filename),
      ],
      {
        cwd: work,
        env: npmEnv({ SCARF_ANALYTICS: 'false', ...(prebuilds ? { npm_config_better_sqlite3_local_prebuilds: prebuilds } : {}) }),
        timeout: 2 * PATIENCE_MS,
      },
    );
    bin = join(prefix, 'bin', 'statusbot');
    installed = join(prefix, 'lib', 'node_modules', 'statusbot');
  });

  afterAll(async () => {
    for (const r of running.splice(0)) await r.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds what runs and what an operator reads, and no tests, bench, sources or fixtures', () => {
    for (const file of [
      'dist/src/cli.js',
      'dist/src/ingest/vendor-catalog.json',
      'dist/migrations/index.js',
      'dist/adapters/slack/app.js',
      'manifest.yml',
      'examples/statusbot.yml',
      'examples/statusbot.service',
      'README.md',
      'CHANGELOG.md',
      'LICENSE',
      'package.json',
    ]) {
      expect(files).toContain(file);
    }
    expect(files.filter((f) => /^(test|bench|src|migrations|adapters|docs|\.ci)\/|^dist\/(bench|test)\/|fixtures|\.map$|\.tsx?$/.test(f))).toEqual([]);
  });

  it('installs globally and serves from any folder, reading its files from the package', async () => {
    const elsewhere = mkdtempSync(join(work, 'elsewhere-'));
    writeFileSync(join(elsewhere, 'statusbot.yml'), readFileSync(join(installed, 'examples', 'statusbot.yml')));
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

    const shown = await spawnCli(['--version'], { cwd: elsewhere, bin });
    // The commit the package was packed from, recorded when npm pack built it.
    const head = execFileSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(shown.stdout.trim(), shown.stderr).toMatch(
      new RegExp(`^statusbot ${version.replaceAll('.', '\\.')} \\(commit ${head}(, with changes not committed)?\\)$`),
    );
    const made = await spawnCli(['migrate', '--db', './x.db'], { cwd: elsewhere, bin });
    expect(made.stdout, made.stderr).toMatch(/^created a new database at \.\/x\.db\napplied 0001_init, /);
    const applied = await spawnCli(['apply', '--config', 'statusbot.yml', '--db', './x.db'], { cwd: elsewhere, bin });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('applied statusbot.yml: 1 company added');

    const server = startCli(['serve', '--config', 'statusbot.yml', '--db', './x.db', '--port', '0'], { cwd: elsewhere, bin });
    running.push(server);
    const { url } = await server.listening();
    await waitUntil(async () => (await fetch(`${url}/healthz`)).status === 200, { what: 'GET /healthz to answer 200' });

    const openapi = await fetch(`${url}/api/v2/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    // swagger-ui-dist, from the package's own dependencies.
    const css = await fetch(`${url}/api/docs/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(await css.text()).toContain('.swagger-ui');
    const page = await fetch(`${url}/status/northwind`);
    const html = await page.text();
    expect(page.status, html).toBe(200);
    expect(html).toContain('Web shop');
    // A vendor of the catalog, a data file of the package.
    const vendor = await fetch(`${url}/services/stripe`);
    expect(vendor.status).toBe(200);
    expect(await vendor.text()).toContain('Stripe');

    const exit = await server.stop(30_000);
    expect(exit, server.out.stderr).toEqual({ code: 0, signal: null });
    expect(server.out.stdout).toContain('"msg":"stopped on SIGTERM"');
    // Nothing but the database it was told: no ./data, nothing else in the working folder.
    expect(readdirSync(elsewhere).filter((f) => !/^(statusbot\.yml|x\.db(-wal|-shm)?)$/.test(f))).toEqual([]);
  });

  it('ships a systemd unit that systemd-analyze verify accepts, run on the installed binary', async (ctx) => {
    const analyze = onPath('systemd-analyze');
    if (!analyze) {
      // CI installs systemd (.ci/run): there the check must run, not be skipped.
      if (process.env.CI === 'true') throw new Error('systemd-analyze is missing: install the systemd package (apt-get install systemd)');
      ctx.skip('systemd-analyze is not installed here (apt-get install systemd): the unit is not verified');
      return;
    }
    const unit = readFileSync(join(installed, 'examples', 'statusbot.service'), 'utf8');
    const execStart = /^ExecStart=(\S+) serve /m.exec(unit);
    expect(execStart?.[1]).toBe('/usr/local/bin/statusbot');
    // verify checks that ExecStart's program exists: point it at the binary this test installed.
    const dir = mkdtempSync(join(work, 'unit-'));
    const file = join(dir, 'statusbot.service');
    writeFileSync(file, unit.replace(/^ExecStart=\S+/m, `ExecStart=${bin}`));
    const verified = await exec(analyze, ['verify', file]).catch((error: { code: number; stdout: string; stderr: string }) => error);
    // It exits 0 even on an unknown key or a bad value, which it only reports: nothing reported is the pass.
    expect({ code: 'code' in verified ? verified.code : 0, output: `${verified.stdout}${verified.stderr}` }).toEqual({ code: 0, output: '' });
  });
});
