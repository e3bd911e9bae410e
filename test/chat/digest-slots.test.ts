import { Colors } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyConfig } from '../../src/config/load-config.js';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { manualClock } from '../../src/domain/clock.js';
import { createDomainContext } from '../../src/domain/context.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { createScheduler } from '../../src/jobs/scheduler.js';
import type { Scheduler } from '../../src/jobs/scheduler.js';
import { createJobDeps } from '../../src/main.js';
import type { ChatHarness, HarnessOptions } from '../helpers/chat.js';
import { startDiscordHarness } from '../helpers/discord.js';
import { quietLogger as quiet } from '../helpers/loggers.js';
import { startSlackHarness } from '../helpers/slack.js';
import { ACME_BOARD, FAST_DELIVERY, T0 } from '../helpers/test-server.js';

/** A digest as a channel shows it, read from the platform's own shape. */
interface Digest {
  id: string;
  replyTo: string | null;
  edits: number;
  /** Slack's fallback text; Discord's embed title. */
  headline: string;
  /** One line per service (and per open incident under it). */
  lines: string[];
  /** The time the digest states: Slack's context line, Discord's embed timestamp. */
  stamp: string;
  /** What each platform's digest must look like besides. */
  shape: unknown;
}

const sections = (blocks: any[]): string =>
  blocks
    .filter((b) => b.type === 'section')
    .map((b) => b.text.text)
    .join('\n');

/**
 * The table: each platform's driver (its harness and how to read a digest from its fake), and what its
 * digest of the board shows. The scenario below is written once.
 */
const TABLE = [
  {
    platform: 'slack',
    async start(options: HarnessOptions) {
      const h = await startSlackHarness(options);
      const digests = (channelId: string): Digest[] =>
        (h.fake.messages.get(channelId) ?? []).map((m) => {
          const context = m.blocks!.at(-1)!;
          return {
            id: m.ts,
            replyTo: m.threadTs,
            edits: m.edits,
            headline: m.text,
            lines: sections(m.blocks!).split('\n'),
            stamp: context.elements[0].text,
            shape: { header: m.blocks![0], footer: context.type },
          };
        });
      return { h, digests, calls: () => h.fake.calls.length };
    },
    headline: (services: number) => `Vendors: 2 of ${services} services with issues`,
    stamp: (at: Date, services: number) =>
      `2 of ${services} services with issues · <!date^${at.getTime() / 1000}^{date_short_pretty} {time}|${at.toISOString()}>`,
    shape: { header: { type: 'header', text: { type: 'plain_text', text: 'Vendors — status digest' } }, footer: 'context' },
    lines: [
      ':red_circle: <http://status.test/services/demo-service-major|Demo Service (major outage)> _payments, critical_',
      '    :red_circle: Demo major outage',
      ':large_yellow_circle: <http://status.test/services/demo-service-minor|Demo Service (minor outage)> _edge_',
      '    :large_yellow_circle: Demo minor outage',
      ':white_check_mark: <http://status.test/services/demo-service-ok|Demo Service (always ok)> _core_',
      ':white_check_mark: <http://status.test/services/acme-cloud|Acme Cloud> _hosting, eu_',
    ],
    otherCloud: ':white_check_mark: <http://status.test/services/other-cloud|Other Cloud> _backup_',
  },
  {
    platform: 'discord',
    async start(options: HarnessOptions) {
      const h = await startDiscordHarness(options);
      const digests = (channelId: string): Digest[] =>
        h.fake.channel(channelId).map((m) => {
          const [embed] = m.body.embeds;
          return {
            id: m.id,
            replyTo: m.replyTo,
            edits: m.edits,
            headline: embed.title,
            lines: embed.description.split('\n'),
            stamp: embed.timestamp,
            shape: { allowed_mentions: m.body.allowed_mentions, embeds: m.body.embeds.length, color: embed.color },
          };
        });
      return { h, digests, calls: () => h.fake.calls.length };
    },
    headline: (_services: number) => 'Board Vendors',
    stamp: (at: Date, _services: number) => at.toISOString(),
    shape: { allowed_mentions: { parse: [] }, embeds: 1, color: Colors.Red },
    lines: [
      '🔴 Major outage · [Demo Service (major outage)](http://status.test/services/demo-service-major) · _payments, critical_',
      '  🔴 Demo major outage',
      '🟠 Minor issues · [Demo Service (minor outage)](http://status.test/services/demo-service-minor) · _edge_',
      '  🟠 Demo minor outage',
      '🟢 Operational · [Demo Service (always ok)](http://status.test/services/demo-service-ok) · _core_',
      '🟢 Operational · [Acme Cloud](http://status.test/services/acme-cloud) · _hosting, eu_',
    ],
    otherCloud: '🟢 Operational · [Other Cloud](http://status.test/services/other-cloud) · _backup_',
  },
] as const;

// 09:00 in Berlin, Monday to Wednesday.
const MONDAY = new Date('2026-11-23T08:00:00Z');
const TUESDAY = new Date('2026-11-24T08:00:00Z');
const WEDNESDAY = new Date('2026-11-25T08:00:00Z');

/** Board digests at their slots, run by two processes of one database: the same scenario on every platform. */
describe.each(TABLE)('$platform', (row) => {
  let h: ChatHarness;
  let digests: (channelId: string) => Digest[];
  let calls: () => number;
  /** A second process: its own connection to the same database, its own scheduler. */
  let other: Db;
  let second: Scheduler;
  let secondDeps: ReturnType<typeof createJobDeps>;
  let wednesdayLoser: Scheduler;
  /** A new message for every digest that changed; one message, edited by every digest. */
  let daily: string;
  let pinned: string;

  beforeAll(async () => {
    ({ h, digests, calls } = await row.start({
      delivery: FAST_DELIVERY,
      boardServices: `
          - { urlname: demo-service-ok, tags: [core] }
          - { urlname: acme-cloud, tags: [hosting, eu] }
          - { urlname: demo-service-minor, tags: [edge] }
          - { urlname: demo-service-major, tags: [payments, critical] }`,
      channels: [
        {
          channel: 'daily',
          boards: '[{ board: vendors, schedule: "0 9 * * 1-5", timezone: Europe/Berlin, only_on_change: true, edit_in_place: false }]',
        },
        { channel: 'pinned', boards: '[{ board: vendors, schedule: "0 9 * * 1-5", timezone: Europe/Berlin, edit_in_place: true }]' },
      ],
    }));
    daily = h.channelId('daily');
    pinned = h.channelId('pinned');
    other = openDatabase({ path: h.s.dbPath });
    const ctx = createDomainContext({ db: other, clock: manualClock(T0), publicUrl: 'http://status.test' });
    secondDeps = createJobDeps(ctx, emptyConfig(), quiet);
    second = createScheduler({ deps: secondDeps, jobs: JOBS });
  });
  afterAll(async () => {
    await second?.stop();
    await secondDeps?.close();
    await other?.destroy();
    await h?.stop();
  });

  /**
   * Both processes run the slot at once, `first` asking first; exactly one of
   * them takes it. Resolves, with the one that did not, once the platform
   * confirmed what the slot queued.
   */
  async function runSlotInBoth(at: Date, first: 'server' | 'other'): Promise<Scheduler> {
    const [a, b] = first === 'server' ? [h.s.scheduler, second] : [second, h.s.scheduler];
    const ran = await Promise.all([a.runSlot('digests', at), b.runSlot('digests', at)]);
    expect(ran.filter(Boolean)).toHaveLength(1);
    await h.settle();
    return ran[0] ? b : a;
  }
  const steps = (channelId: string) => h.sent(channelId).map((s) => [s.step, s.of]);

  it('a slot run by two processes posts one digest per channel', async () => {
    await runSlotInBoth(MONDAY, 'server');
    for (const channel of [daily, pinned]) {
      expect(steps(channel)).toEqual([['message', null]]);
      expect(digests(channel)).toHaveLength(1);
    }
  });

  it('the digest lists every service of the board worst first, with its status, open incidents and tags', () => {
    for (const channel of [daily, pinned]) {
      const [digest] = digests(channel);
      expect(digest!.replyTo).toBeNull();
      expect(digest!.shape).toEqual(row.shape);
      expect(digest!.headline).toBe(row.headline(4));
      expect(digest!.lines).toEqual(row.lines);
      expect(digest!.stamp).toBe(row.stamp(MONDAY, 4));
    }
  });

  it('a later slot with nothing changed posts nothing in the only_on_change channel; edit_in_place edits its message', async () => {
    await runSlotInBoth(TUESDAY, 'other');
    expect(steps(daily)).toEqual([['message', null]]);
    const [digest, ...more] = digests(pinned);
    expect(more).toHaveLength(0);
    expect(steps(pinned)).toEqual([
      ['message', null],
      ['edit', digest!.id],
    ]);
    expect(digest!.edits).toBe(1);
    expect(digest!.shape).toEqual(row.shape);
    expect(digest!.lines).toEqual(row.lines);
    expect(digest!.stamp).toBe(row.stamp(TUESDAY, 4));
  });

  it('after the board changed, the next slot posts a new digest in one channel and edits the same message in the other', async () => {
    const added = await h.s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/other-cloud`, { body: { tags: ['backup'] } });
    expect(added.status).toBe(201);
    wednesdayLoser = await runSlotInBoth(WEDNESDAY, 'other');
    const withOther = [...row.lines, row.otherCloud];

    expect(steps(daily)).toEqual([
      ['message', null],
      ['message', null],
    ]);
    const posted = digests(daily);
    expect(posted).toHaveLength(2);
    expect(posted[1]!.id).not.toBe(posted[0]!.id);
    expect(posted[0]!.edits).toBe(0);
    expect(posted[1]!.headline).toBe(row.headline(5));
    expect(posted[1]!.lines).toEqual(withOther);
    expect(posted[1]!.stamp).toBe(row.stamp(WEDNESDAY, 5));

    const [digest, ...more] = digests(pinned);
    expect(more).toHaveLength(0);
    expect(steps(pinned)).toEqual([
      ['message', null],
      ['edit', digest!.id],
      ['edit', digest!.id],
    ]);
    expect(digest!.edits).toBe(2);
    expect(digest!.shape).toEqual(row.shape);
    expect(digest!.headline).toBe(row.headline(5));
    expect(digest!.lines).toEqual(withOther);
    expect(digest!.stamp).toBe(row.stamp(WEDNESDAY, 5));
  });

  it('the slot run again later by the process that did not take it queues nothing more', async () => {
    const before = calls();
    // The process that took Wednesday's slot still holds its lease.
    expect(await wednesdayLoser.runSlot('digests', WEDNESDAY)).toBe(false);
    const queued = await h.s.ctx.db.selectFrom('outbox').select('id').where('event', '=', 'board.digest').execute();
    expect(queued).toHaveLength(5);
    expect(calls()).toBe(before);
  });
});
