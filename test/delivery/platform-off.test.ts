import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import type { ChatPlatform } from '../../src/db/schema.js';
import { settleRowsOfPlatformsOff, WAIT_FOR_PLATFORM_MS } from '../../src/delivery/outbox-queue.js';
import { queueDueDigests } from '../../src/domain/read/digests/board-digest.js';
import { manualClock } from '../../src/domain/clock.js';
import { createDomainContext } from '../../src/domain/context.js';
import { enqueueAll } from '../../src/domain/notifications/enqueue.js';
import { applySetup } from '../../src/domain/setup/apply-setup.js';
import { runCli } from '../cli/run-cli.js';
import { startTestServer } from '../helpers/test-server.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';

const NINE = '2026-03-02T09:00:00.000Z';
const CONFIG = `
companies:
  - name: Acme
    plan: business
    slack: { team_id: T1 }
    discord: { guild_id: "111" }
    boards:
      - id: 5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01
        name: Vendors
        urlname: vendors
        services:
          - { urlname: demo-service, tags: [core] }
    channels:
      - slack: C1
        boards: [{ board: vendors, schedule: "0 9 * * *" }]
      - discord: "222"
        boards: [{ board: vendors, schedule: "0 9 * * *" }]
`;

let database: TestDatabase;
let db: Db;
const clock = manualClock(NINE);
const contextWith = (off: [ChatPlatform, string][]) => createDomainContext({ db, clock, publicUrl: 'http://status.test', chatOff: new Map(off) });
const SLACK_OFF: [ChatPlatform, string][] = [['slack', 'no SLACK_BOT_TOKEN']];

async function outbox() {
  return db.selectFrom('outbox').select(['id', 'stream', 'state', 'attempts', 'last_error']).orderBy('id').execute();
}

beforeEach(async () => {
  database = await createTestDatabase();
  db = openDatabase({ path: database.path });
  clock.set(NINE);
  await applySetup(contextWith([]), parseConfig('statusbot.yml', CONFIG).config.setup);
});
afterEach(async () => {
  await db.destroy();
  await database.drop();
});

describe('a chat platform that is off in this process', () => {
  it('gets nothing queued for its channels; the other platform does', async () => {
    expect(await queueDueDigests(contextWith(SLACK_OFF), new Date(NINE))).toBe(1);
    expect((await outbox()).map((r) => r.stream)).toEqual(['discord:111:222']);
    // Turned on, its channel has its digest from the next one on, none of those it missed.
    clock.set('2026-03-03T09:00:00.000Z');
    expect(await queueDueDigests(contextWith([]), clock.now())).toBe(2);
    expect((await outbox()).map((r) => r.stream)).toEqual(['discord:111:222', 'slack:T1:C1', 'discord:111:222']);
  });

  it('is one whose credentials the server lacks', async () => {
    const server = await startTestServer({
      dbPath: database.path,
      config: CONFIG,
      env: { DISCORD_TOKEN: 'x', DISCORD_APPLICATION_ID: '1', DISCORD_GATEWAY: 'off' },
    });
    try {
      expect(await queueDueDigests(server.ctx, new Date(NINE))).toBe(1);
      expect((await outbox()).map((r) => r.stream)).toEqual(['discord:111:222']);
    } finally {
      await server.stop();
    }
  });

  it('rows queued while it was off wait, say why, and expire after a day; a row it tried is never dropped', async () => {
    const company = (await db.selectFrom('companies').select('id').executeTakeFirstOrThrow()).id;
    const now = clock.now().getTime();
    const row = (stream: string, at: number) => ({ companyId: company, subscriberId: null, stream, event: 'incident.created', payload: {}, now: at });
    await db
      .transaction()
      .execute((trx) =>
        enqueueAll(trx, [
          row('slack:T1:C1', now - 2 * WAIT_FOR_PLATFORM_MS),
          row('slack:T1:C2', now - 60 * 60_000),
          row('slack:T1:C3', now - 2 * WAIT_FOR_PLATFORM_MS),
          row('discord:111:222', now - 2 * WAIT_FOR_PLATFORM_MS),
        ]),
      );
    // Queued while Slack was on, tried during an outage of Slack.
    await db.updateTable('outbox').set({ attempts: 2, last_error: 'HTTP 500' }).where('stream', '=', 'slack:T1:C3').execute();

    expect(await settleRowsOfPlatformsOff(contextWith(SLACK_OFF))).toEqual({ waiting: 2, expired: 1 });
    const listed = await runCli(['outbox', 'list', '--db', database.path], { cwd: process.cwd() });
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^\d+\tdead\tincident\.created\tslack:T1:C1\tattempts 0\t\S+ {2}expired: Slack was off for a day$/);
    expect(lines[1]).toMatch(/^\d+\tpending\tincident\.created\tslack:T1:C2\tattempts 0\t\S+ {2}waiting: Slack is off \(no SLACK_BOT_TOKEN\)$/);
    expect(lines[2]).toMatch(/^\d+\tpending\tincident\.created\tslack:T1:C3\tattempts 2\t\S+ {2}HTTP 500$/);
    expect(lines[3]).toMatch(/^\d+\tpending\tincident\.created\tdiscord:111:222\tattempts 0\t\S+$/);

    // Slack turned on: the row that waited an hour is delivered as usual; once a day old, it expires instead of flooding.
    expect(await settleRowsOfPlatformsOff(contextWith([]))).toEqual({ waiting: 0, expired: 0 });
    clock.advance(WAIT_FOR_PLATFORM_MS);
    expect(await settleRowsOfPlatformsOff(contextWith([]))).toEqual({ waiting: 0, expired: 1 });
    clock.advance(30 * WAIT_FOR_PLATFORM_MS);
    await settleRowsOfPlatformsOff(contextWith(SLACK_OFF));
    expect((await outbox()).map((r) => [r.stream, r.state])).toEqual([
      ['slack:T1:C1', 'dead'],
      ['slack:T1:C2', 'dead'],
      ['slack:T1:C3', 'pending'],
      ['discord:111:222', 'pending'],
    ]);
  });
});
