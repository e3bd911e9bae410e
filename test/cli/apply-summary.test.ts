import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { startServer } from '../../src/main.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { recordingLogger } from '../helpers/loggers.js';
import { README_EXAMPLE_CONFIG } from '../helpers/test-server.js';
import { runCli } from './run-cli.js';

let dir: string;
let database: TestDatabase;
let config: string;

const apply = (env: NodeJS.ProcessEnv = {}) => runCli(['apply', '--config', config, '--db', database.path], { cwd: dir, env });
const write = (text: string) => writeFileSync(config, text);

const WITH_PAGE = `${README_EXAMPLE_CONFIG}    status_pages:
      - name: Acme status
        services: [acme-api]
        subscribers:
          - { webhook: "https://hooks.acme.example/statusbot", secret: "0123456789abcdef0123" }
          - { email: "ops@acme.example" }
`;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-apply-'));
  config = join(dir, 'statusbot.yml');
  database = await createTestDatabase();
});
afterEach(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('statusbot apply', () => {
  it('says what it added, changed and removed, by kind, and "no changes" the second time', async () => {
    write(WITH_PAGE);
    const first = await apply();
    expect(first.code, first.stderr).toBe(0);
    const said = first.stdout.trim();
    expect(said).toMatch(
      new RegExp(
        `^applied ${config}: 1 company added, 1 API key added, \\d+ services added, 2 monitors added, 1 board added, 1 status page added, 2 subscribers added$`,
      ),
    );

    const again = await apply();
    expect(again.stdout).toBe(`applied ${config}: no changes\n`);

    // One monitor renamed, one subscriber dropped.
    write(WITH_PAGE.replace('name: Login', 'name: Sign-in').replace('          - { email: "ops@acme.example" }\n', ''));
    const changed = await apply();
    expect(changed.stdout).toBe(`applied ${config}: 1 monitor changed, 1 subscriber removed\n`);

    // Incident channels turned on: the company changed.
    write(WITH_PAGE.replace('    plan: business\n', '    plan: business\n    chat: { incident_channels: true }\n'));
    const rooms = await apply();
    expect(rooms.stdout).toBe(`applied ${config}: 1 company changed, 1 monitor changed, 1 subscriber added\n`);
  });

  it('serve logs the same summary as it applies the config at start', async () => {
    const logger = recordingLogger();
    const start = async () => {
      const server = await startServer({
        dbPath: database.path,
        port: 0,
        host: '127.0.0.1',
        config: parseConfig('statusbot.yml', README_EXAMPLE_CONFIG).config,
        logger,
        notice: () => {},
        env: {},
        delivery: { enabled: false },
      });
      await server.close();
    };
    await start();
    const first = logger.records.find((r) => r.message.startsWith('config applied: '))!;
    expect(first.message).toMatch(/^config applied: 1 company added, 1 API key added, \d+ services added, 2 monitors added, 1 board added$/);
    expect(first.fields.changes).toMatchObject({ companies: { added: 1, changed: 0, removed: 0 }, monitors: { added: 2, changed: 0, removed: 0 } });
    logger.records.length = 0;
    await start();
    const second = logger.records.find((r) => r.message.startsWith('config applied: '))!;
    expect(second.message).toBe('config applied: no changes');
    expect(second.fields.changes).toEqual({});
  });

  it('takes a secret from the environment, and refuses the file, changing nothing, while it is unset', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference of the config, not of this string.
    write(WITH_PAGE.replace('secret: "0123456789abcdef0123"', 'secret: "${HOOK_SECRET}"'));
    const line = WITH_PAGE.split('\n').findIndex((l) => l.includes('0123456789abcdef0123')) + 1;

    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `statusbot: ${config} is not a valid statusbot config:\n  ${config}:${line}: environment variable HOOK_SECRET is not set (set it, or give a default: \${HOOK_SECRET:-value})\n`,
    );

    // Nothing was applied: everything is added now.
    const applied = await apply({ HOOK_SECRET: '0123456789abcdef0123' });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/: 1 company added,.*2 subscribers added$/m);
    // The same secret as written in the file: nothing to change.
    write(WITH_PAGE);
    expect((await apply()).stdout).toBe(`applied ${config}: no changes\n`);
  });
});
