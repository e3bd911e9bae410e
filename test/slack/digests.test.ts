import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { manualClock } from '../../src/domain/clock.js';
import { createDomainContext } from '../../src/domain/context.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { createJobDeps } from '../../src/main.js';
import { emptyConfig } from '../../src/config/load-config.js';
import { createScheduler } from '../../src/jobs/scheduler.js';
import type { Scheduler } from '../../src/jobs/scheduler.js';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack, SlackCall } from '../fakes/fake-slack.js';
import { ACME_BOARD, FAST_DELIVERY, T0 } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { ACME_KEY, ACME_TEAM, startSlackServer } from '../helpers/slack.js';
import { quietLogger as quiet } from '../helpers/loggers.js';

/** A new message for every digest that changed. */
const DAILY = 'CDIGEST';
/** One message, edited by every digest. */
const PINNED = 'CPINNED';

const CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
services:
  - { urlname: acme-cloud, name: Acme Cloud }
  - { urlname: other-cloud, name: Other Cloud }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    boards:
      - id: ${ACME_BOARD}
        name: Vendors
        urlname: vendors
        services:
          - { urlname: demo-service-ok, tags: [core] }
          - { urlname: acme-cloud, tags: [hosting, eu] }
          - { urlname: demo-service-minor, tags: [edge] }
          - { urlname: demo-service-major, tags: [payments, critical] }
    slack: { team_id: ${ACME_TEAM} }
    channels:
      - slack: ${DAILY}
        boards: [{ board: vendors, schedule: "0 9 * * 1-5", timezone: Europe/Berlin, only_on_change: true, edit_in_place: false }]
      - slack: ${PINNED}
        boards: [{ board: vendors, schedule: "0 9 * * 1-5", timezone: Europe/Berlin, edit_in_place: true }]
`;

// 09:00 in Berlin, Monday to Wednesday.
const MONDAY = new Date('2026-11-23T08:00:00Z');
const TUESDAY = new Date('2026-11-24T08:00:00Z');
const WEDNESDAY = new Date('2026-11-25T08:00:00Z');

let fake: FakeSlack;
let s: TestServer;
/** A second process: its own connection to the same database file, its own scheduler. */
let other: Db;
let second: Scheduler;
let secondDeps: ReturnType<typeof createJobDeps>;
let wednesdayLoser: Scheduler;

beforeAll(async () => {
  fake = await startFakeSlack();
  s = await startSlackServer(fake, { config: CONFIG, delivery: FAST_DELIVERY });
  other = openDatabase({ path: s.dbPath });
  const ctx = createDomainContext({ db: other, clock: manualClock(T0), publicUrl: 'http://status.test' });
  secondDeps = createJobDeps(ctx, emptyConfig(), quiet);
  second = createScheduler({ deps: secondDeps, jobs: JOBS });
});
afterAll(async () => {
  await second?.stop();
  await secondDeps?.close();
  await other?.destroy();
  await s?.stop();
  await fake?.close();
});

/**
 * Both processes run the slot at once, `first` asking first; exactly one of
 * them takes it. Resolves, with the one that did not, once Slack confirmed
 * what the slot queued.
 */
async function runSlotInBoth(at: Date, first: 'server' | 'other'): Promise<Scheduler> {
  const [a, b] = first === 'server' ? [s.scheduler, second] : [second, s.scheduler];
  const ran = await Promise.all([a.runSlot('digests', at), b.runSlot('digests', at)]);
  expect(ran.filter(Boolean)).toHaveLength(1);
  await fake.waitFor(async () => {
    const left = await s.ctx.db.selectFrom('outbox').select('id').where('stream', 'like', 'slack:%').where('state', '!=', 'sent').execute();
    return left.length === 0;
  });
  return ran[0] ? b : a;
}

const chatCalls = (channel: string): SlackCall[] => fake.calls.filter((c) => c.ok && c.body.channel === channel && c.method.startsWith('chat.'));
const sections = (blocks: any[]): string =>
  blocks
    .filter((b) => b.type === 'section')
    .map((b) => b.text.text)
    .join('\n');

const MONDAY_LINES = [
  ':red_circle: <http://status.test/services/demo-service-major|Demo Service (major outage)> _payments, critical_',
  '    :red_circle: Demo major outage',
  ':large_yellow_circle: <http://status.test/services/demo-service-minor|Demo Service (minor outage)> _edge_',
  '    :large_yellow_circle: Demo minor outage',
  ':white_check_mark: <http://status.test/services/demo-service-ok|Demo Service (always ok)> _core_',
  ':white_check_mark: <http://status.test/services/acme-cloud|Acme Cloud> _hosting, eu_',
];

describe('board digests in Slack', () => {
  it('a slot run by two processes posts one digest per channel', async () => {
    await runSlotInBoth(MONDAY, 'server');
    for (const channel of [DAILY, PINNED]) {
      expect(chatCalls(channel).map((c) => c.method)).toEqual(['chat.postMessage']);
      expect(fake.messages.get(channel)).toHaveLength(1);
    }
  });

  it('the digest lists every service of the board worst first, with its status, open incidents and tags', () => {
    for (const channel of [DAILY, PINNED]) {
      const [message] = fake.messages.get(channel)!;
      expect(message!.threadTs).toBeNull();
      expect(message!.text).toBe('Vendors: 2 of 4 services with issues');
      const blocks = message!.blocks!;
      expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Vendors — status digest' } });
      expect(sections(blocks).split('\n')).toEqual(MONDAY_LINES);
      const context = blocks.at(-1)!;
      expect(context.type).toBe('context');
      expect(context.elements[0].text).toBe(
        `2 of 4 services with issues · <!date^${MONDAY.getTime() / 1000}^{date_short_pretty} {time}|2026-11-23T08:00:00.000Z>`,
      );
    }
  });

  it('a later slot with nothing changed posts nothing in the only_on_change channel; edit_in_place edits its message', async () => {
    await runSlotInBoth(TUESDAY, 'other');
    expect(chatCalls(DAILY).map((c) => c.method)).toEqual(['chat.postMessage']);
    const [pinned] = fake.messages.get(PINNED)!;
    expect(fake.messages.get(PINNED)).toHaveLength(1);
    expect(chatCalls(PINNED).map((c) => [c.method, c.body.ts ?? null])).toEqual([
      ['chat.postMessage', null],
      ['chat.update', pinned!.ts],
    ]);
    expect(sections(pinned!.blocks!).split('\n')).toEqual(MONDAY_LINES);
    expect(pinned!.blocks!.at(-1)!.elements[0].text).toContain('|2026-11-24T08:00:00.000Z>');
  });

  it('after the board changed, the next slot posts a new digest in one channel and edits the same message in the other', async () => {
    const added = await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/other-cloud`, { body: { tags: ['backup'] } });
    expect(added.status).toBe(201);
    wednesdayLoser = await runSlotInBoth(WEDNESDAY, 'other');
    const withOther = [...MONDAY_LINES, ':white_check_mark: <http://status.test/services/other-cloud|Other Cloud> _backup_'];

    expect(chatCalls(DAILY).map((c) => c.method)).toEqual(['chat.postMessage', 'chat.postMessage']);
    const daily = fake.messages.get(DAILY)!;
    expect(daily).toHaveLength(2);
    expect(daily[1]!.ts).not.toBe(daily[0]!.ts);
    expect(daily[0]!.edits).toBe(0);
    expect(daily[1]!.text).toBe('Vendors: 2 of 5 services with issues');
    expect(sections(daily[1]!.blocks!).split('\n')).toEqual(withOther);

    const pinned = fake.messages.get(PINNED)!;
    expect(pinned).toHaveLength(1);
    expect(chatCalls(PINNED).map((c) => [c.method, c.body.ts ?? null])).toEqual([
      ['chat.postMessage', null],
      ['chat.update', pinned[0]!.ts],
      ['chat.update', pinned[0]!.ts],
    ]);
    expect(pinned[0]!.edits).toBe(2);
    expect(pinned[0]!.text).toBe('Vendors: 2 of 5 services with issues');
    expect(sections(pinned[0]!.blocks!).split('\n')).toEqual(withOther);
    expect(pinned[0]!.blocks!.at(-1)!.elements[0].text).toContain('|2026-11-25T08:00:00.000Z>');
  });

  it('the slot run again later by the process that did not take it queues nothing more', async () => {
    const before = fake.calls.filter((c) => c.method.startsWith('chat.')).length;
    // The process that took Wednesday's slot still holds its lease.
    expect(await wednesdayLoser.runSlot('digests', WEDNESDAY)).toBe(false);
    const queued = await s.ctx.db.selectFrom('outbox').select('id').where('event', '=', 'board.digest').execute();
    expect(queued).toHaveLength(5);
    expect(fake.calls.filter((c) => c.method.startsWith('chat.')).length).toBe(before);
  });
});
