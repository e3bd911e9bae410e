import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { README_EXAMPLE_CONFIG, startTestServer } from '../helpers/test-server.js';
import { runCli } from './run-cli.js';

const ROUTING_KEY = 'R0UT1NGKEY';
const GENIE_KEY = 'genie-0f1e2d3c4b5a';
const BOT_TOKEN = '123456:ABC-DEF1234ghIkl';
const SIG = 'TeamsSignature0123';

let dir: string;
let database: TestDatabase;
let config: string;

const cli = (...args: string[]) => runCli([...args, '--db', database.path], { cwd: dir });
const write = (text: string) => writeFileSync(config, text);

const WITH_DESTINATIONS = `${README_EXAMPLE_CONFIG}    notify:
      - { pagerduty: { routing_key: "${ROUTING_KEY}" } }
      - { opsgenie: { api_key: "${GENIE_KEY}", url: "https://api.eu.opsgenie.com" } }
      - { teams: { webhook: "https://acme.westeurope.logic.azure.com/workflows/1/triggers/manual/paths/invoke?sig=${SIG}" } }
      - { telegram: { bot_token: "${BOT_TOKEN}", chat_id: "-1001234567890" } }
`;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-notify-'));
  config = join(dir, 'statusbot.yml');
  database = await createTestDatabase();
});
afterEach(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('notification destinations in the CLI', () => {
  it('apply says which destinations it added and removed; a changed key is one removed and one added', async () => {
    write(WITH_DESTINATIONS);
    const first = await cli('apply', '--config', config);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('4 notification destinations added');
    expect((await cli('apply', '--config', config)).stdout).toBe(`applied ${config}: no changes\n`);

    write(WITH_DESTINATIONS.replace(ROUTING_KEY, 'N3WR0UT1NGKEY').replace(/^ {6}- \{ teams: .*\n/m, ''));
    const changed = await cli('apply', '--config', config);
    expect(changed.stdout).toBe(`applied ${config}: 1 notification destination added, 2 notification destinations removed\n`);
    for (const secret of [ROUTING_KEY, 'N3WR0UT1NGKEY', GENIE_KEY, BOT_TOKEN, SIG]) expect(changed.stdout + changed.stderr).not.toContain(secret);
  });

  it('outbox list shows each destination by kind and number, never its secrets', async () => {
    // A server that queues but does not deliver: the rows wait in the outbox.
    const server = await startTestServer({ config: WITH_DESTINATIONS, dbPath: database.path });
    try {
      expect((await server.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Down' } })).status).toBe(201);
    } finally {
      await server.stop();
    }
    const listed = await cli('outbox', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines.map((l) => l.split('\t')[3]!.split(':')[0]).sort()).toEqual(['opsgenie', 'pagerduty', 'teams', 'telegram']);
    for (const secret of [ROUTING_KEY, GENIE_KEY, BOT_TOKEN, SIG]) expect(listed.stdout).not.toContain(secret);
  });
});
