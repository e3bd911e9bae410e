import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../cli/run-cli.js';
import { waitUntil } from '../helpers/wait-until.js';

const exec = promisify(execFile);
const IMAGE = process.env.STATUSBOT_TEST_IMAGE ?? '';
const BASE = process.env.STATUSBOT_TEST_NODE_IMAGE ?? '';
if (!IMAGE || !BASE) throw new Error('run test/container/run-container-tests.sh: it builds the image and names it in STATUSBOT_TEST_IMAGE');

/** Names of this run's containers and volumes, removed at the end whatever happened. */
const RUN = `statusbot-test-${process.pid}`;
const made = { containers: [] as string[], volumes: [] as string[] };

async function podman(...args: string[]): Promise<string> {
  const { stdout } = await exec('podman', args, { maxBuffer: 32 << 20 });
  return stdout.trim();
}
/** Exit code and output of a command that may fail. */
async function attempt(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string }> {
  return exec(command, args, { maxBuffer: 32 << 20, env, cwd: ROOT }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  );
}

/** podman's inspect output, read as plain data. */
async function inspect(kind: 'image' | 'container', name: string): Promise<any> {
  return (JSON.parse(await podman(kind, 'inspect', name)) as unknown[])[0];
}

/** Starts the image as a user would, read-only but for /data (no tmpfs on /tmp either); returns the container's name. */
async function runImage(name: string, volume: string, extra: string[] = []): Promise<string> {
  const full = `${RUN}-${name}`;
  made.containers.push(full);
  made.volumes.push(volume);
  await podman('run', '-d', '--name', full, '--read-only', '--read-only-tmpfs=false', '-v', `${volume}:/data`, '-p', '127.0.0.1::8080', ...extra, IMAGE);
  return full;
}

async function urlOf(container: string): Promise<string> {
  return `http://${await podman('port', container, '8080/tcp')}`;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.text() };
}

/** Waits until the server answers /healthz with 200. */
async function healthy(container: string): Promise<string> {
  const url = await urlOf(container);
  await waitUntil(
    () =>
      get(`${url}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      ),
    { what: `${container} to answer /healthz` },
  );
  return url;
}

const logsOf = (container: string) => attempt('podman', ['logs', container]).then((r) => r.out);

afterAll(async () => {
  for (const c of made.containers) await attempt('podman', ['rm', '-f', '-t', '0', c]);
  for (const v of made.volumes) await attempt('podman', ['volume', 'rm', '-f', v]);
});

describe('the container image', () => {
  it('is labelled with its version and revision, runs as uid 10001, exposes 8080, keeps /data in a volume and checks /healthz', async () => {
    const image = await inspect('image', IMAGE);
    expect(image.Config.Labels).toMatchObject({
      'org.opencontainers.image.version': process.env.STATUSBOT_TEST_VERSION,
      'org.opencontainers.image.revision': process.env.STATUSBOT_TEST_REVISION,
    });
    expect(image.Config.User).toBe('10001:10001');
    expect(Object.keys(image.Config.ExposedPorts)).toEqual(['8080/tcp']);
    expect(Object.keys(image.Config.Volumes)).toEqual(['/data']);
    // Podman shows it beside Config, Docker in it.
    expect((image.Config.Healthcheck ?? image.Healthcheck).Test.join(' ')).toContain('/healthz');
    expect(image.Config.Env).toContain('STATUSBOT_DB=/data/statusbot.db');
    // The image sets these and nothing else: what the base trusts for its build (a CA bundle) is the base's.
    const base = await inspect('image', BASE);
    const added = (image.Config.Env as string[]).filter((e) => !(base.Config.Env as string[]).includes(e)).map((e) => e.split('=')[0]);
    expect(added.sort()).toEqual(['NODE_ENV', 'STATUSBOT_DB']);
  });

  it('says its version and the commit it was built from', async () => {
    const shown = await podman('run', '--rm', '--read-only', IMAGE, '--version');
    expect(shown).toBe(`statusbot ${process.env.STATUSBOT_TEST_VERSION} (commit ${process.env.STATUSBOT_TEST_REVISION})`);
  });

  it('adds at most 80 MB to its base', async () => {
    const added = (await inspect('image', IMAGE)).Size - (await inspect('image', BASE)).Size;
    console.log(`the image adds ${(added / 1e6).toFixed(1)} MB to ${BASE}`);
    expect(added).toBeLessThanOrEqual(80 * 1e6);
  });

  describe('started with no config', () => {
    let container: string;
    let url: string;
    let key: string;
    let intro: string;
    beforeAll(async () => {
      container = await runImage('demo', `${RUN}-demo-data`);
      url = await healthy(container);
      // Not a terminal: the start lines are JSON lines, as the log's are.
      const printed = await waitUntil(
        async () =>
          (await logsOf(container))
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as { msg?: string; demo_api_key?: string })
            .find((record) => record.demo_api_key !== undefined),
        { what: 'the demo key in the log' },
      );
      key = printed.demo_api_key!;
      intro = printed.msg!;
    });

    it('serves the demo, as npm start does', async () => {
      const page = await get(`${url}/status/demo`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('Demo');
      expect(intro).toMatch(/^Created the demo company "Demo"/);
      // What the image leaves out of its dependencies is nothing the server reads: the API reference's files.
      for (const file of ['/api/docs', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui-bundle.js.map']) {
        expect((await get(`${url}${file}`)).status, file).toBe(200);
      }
      expect((await get(`${url}/api/v2/boards/00000000-0000-4000-8000-000000000001`, { Authorization: `Bearer ${key}` })).status).toBe(200);
    });

    it('runs as uid 10001, with /data the only place it can write', async () => {
      expect(await podman('exec', container, 'id', '-u')).toBe('10001');
      expect((await attempt('podman', ['exec', container, 'sh', '-c', 'touch /data/probe && rm /data/probe'])).code).toBe(0);
      for (const dir of ['/', '/app', '/app/dist', '/tmp', '/etc/statusbot', '/var/tmp']) {
        const write = await attempt('podman', ['exec', container, 'sh', '-c', `touch ${dir}/probe`]);
        expect(write.code, `${dir} should not be writable`).not.toBe(0);
      }
    });

    it('passes its own health check', async () => {
      expect((await attempt('podman', ['healthcheck', 'run', container])).code).toBe(0);
    });

    it('stops on podman stop within 10 s, exits 0, and has its data after a restart', async () => {
      const created = await fetch(`${url}/api/v2/incidents`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ service_id: 9001, title: 'Kept across a restart', status: 'major', description: 'written before podman stop' }),
      });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as { data: { id: string } }).data.id;

      const started = Date.now();
      await podman('stop', '-t', '10', container);
      const took = Date.now() - started;
      const state = (await inspect('container', container)).State;
      expect(state.ExitCode).toBe(0);
      expect(took).toBeLessThan(10_000);
      expect(await logsOf(container)).toContain('stopped on SIGTERM');

      await podman('start', container);
      url = await healthy(container);
      const read = await get(`${url}/api/v2/incidents/${id}`, { Authorization: `Bearer ${key}` });
      expect(read.status).toBe(200);
      expect(read.body).toContain('Kept across a restart');
    });
  });

  it('uses a config mounted at /etc/statusbot/statusbot.yml, with names in it read from the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'statusbot-image-config-'));
    try {
      const file = join(dir, 'statusbot.yml');
      writeFileSync(
        file,
        [
          'demo: false',
          'companies:',
          '  - name: Acme',
          '    custom_services:',
          '      - { id: 101, name: Web shop, urlname: shop }',
          '    status_pages:',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${NAME}, read by statusbot from the environment.
          '      - name: ${PAGE_NAME:-Acme status}',
          '        slug: acme',
          '        services: [shop]',
          '',
        ].join('\n'),
        { mode: 0o644 },
      );
      const container = await runImage('config', `${RUN}-config-data`, [
        '-v',
        `${file}:/etc/statusbot/statusbot.yml:ro`,
        '-e',
        'PAGE_NAME=Acme from the environment',
      ]);
      const url = await healthy(container);
      const page = await get(`${url}/status/acme`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('Acme from the environment');
      expect((await get(`${url}/status/demo`)).status).toBe(404);
      expect(await logsOf(container)).not.toContain('Created the demo company');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const composeTools = async (): Promise<{ config: boolean; up: boolean }> => ({
  config: (await attempt('docker-compose', ['version'])).code === 0,
  up: (await attempt('podman-compose', ['version'])).code === 0,
});
const tools = await composeTools();
if (!tools.config || !tools.up) {
  const missing = [tools.config ? '' : 'docker-compose', tools.up ? '' : 'podman-compose'].filter(Boolean).join(' and ');
  if (process.env.CI === 'true') throw new Error(`the compose file's tests need ${missing} (apt-get install ${missing})`);
  console.log(`compose file tests skipped in part: ${missing} not installed`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('compose.yaml', () => {
  it.skipIf(!tools.config)('is valid, and its postgres profile adds PostgreSQL 15 and a statusbot on it', async () => {
    const rendered = await attempt('docker-compose', ['-f', 'compose.yaml', 'config']);
    expect(rendered.code, rendered.out).toBe(0);
    // The rendered compose file, read as plain data.
    const { services } = parse(rendered.out) as { services: Record<string, any> };
    expect(services.statusbot.profiles).toBeUndefined();
    expect(services.statusbot.environment.STATUSBOT_DB).toBe('/data/statusbot.db');
    expect(services.statusbot.volumes).toEqual(['statusbot-data:/data:rw']);
    expect(services.postgres).toMatchObject({ image: 'postgres:15', profiles: ['postgres'] });
    expect(services['statusbot-postgres']).toMatchObject({ profiles: ['postgres'], depends_on: { postgres: { condition: 'service_healthy' } } });
    expect(services['statusbot-postgres'].environment.STATUSBOT_DB).toBe('postgres://statusbot:statusbot@postgres:5432/statusbot');
  });

  it.skipIf(!tools.up)('runs its default service: statusbot on SQLite in a named volume', async () => {
    const project = `${RUN}-compose`;
    const port = await freePort();
    const env = { ...process.env, STATUSBOT_IMAGE: IMAGE, STATUSBOT_PORT: String(port) };
    const compose = (...args: string[]) => attempt('podman-compose', ['-p', project, '-f', 'compose.yaml', ...args], env);
    try {
      const up = await compose('up', '-d', 'statusbot');
      expect(up.code, up.out).toBe(0);
      const url = `http://127.0.0.1:${port}`;
      await waitUntil(
        () =>
          get(`${url}/healthz`).then(
            (r) => r.status === 200,
            () => false,
          ),
        { what: 'the compose service to answer /healthz' },
      );
      expect((await get(`${url}/status/demo`)).status).toBe(200);
      const names = (await podman('ps', '--filter', `label=io.podman.compose.project=${project}`, '--format', '{{.Names}}')).split('\n');
      expect(names).toHaveLength(1);
      const mounts = (await inspect('container', names[0]!)).Mounts as { Type: string; Destination: string; Name?: string }[];
      expect(mounts).toContainEqual(expect.objectContaining({ Type: 'volume', Destination: '/data', Name: `${project}_statusbot-data` }));
    } finally {
      await compose('down', '-v', '-t', '10');
    }
  });
});
