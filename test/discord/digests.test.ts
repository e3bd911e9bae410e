import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Colors } from 'discord.js';
import { openDatabase } from '../../src/db/database.js';
import type { Db } from '../../src/db/database.js';
import { manualClock } from '../../src/domain/clock.js';
import { createDomainContext } from '../../src/domain/context.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { createJobDeps } from '../../src/main.js';
import { emptyConfig } from '../../src/config/load-config.js';
import { createScheduler } from '../../src/jobs/scheduler.js';
import type { Scheduler } from '../../src/jobs/scheduler.js';
import { startFakeDiscord } from '../fakes/fake-discord.js';
import type { DiscordCall, FakeDiscord } from '../fakes/fake-discord.js';
import { ACME_BOARD, ACME_KEY, FAST_DELIVERY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { discordEnv } from '../helpers/discord.js';
import { quietLogger as quiet } from '../helpers/loggers.js';

/** A new message for every digest that changed. */
const DAILY = '301';
/** One message, edited by every digest. */
const PINNED = '302';

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
    discord: { guild_id: "111" }
    channels:
      - discord: "${DAILY}"
        boards: [{ board: vendors, schedule: "0 9 * * 1-5", timezone: Europe/Berlin, only_on_change: true, edit_in_place: false }]
      - discord: "${PINNED}"
        boards: [{ board: vendors, schedule: "0 9 * * 1-5", timezone: Europe/Berlin, edit_in_place: true }]
`;

// 09:00 in Berlin, Monday to Wednesday.
const MONDAY = new Date('2026-11-23T08:00:00Z');
const TUESDAY = new Date('2026-11-24T08:00:00Z');
const WEDNESDAY = new Date('2026-11-25T08:00:00Z');

let fake: FakeDiscord;
let s: TestServer;
/** A second process: its own connection to the same database file, its own scheduler. */
let other: Db;
let second: Scheduler;
let secondDeps: ReturnType<typeof createJobDeps>;
let wednesdayLoser: Scheduler;

beforeAll(async () => {
  fake = await startFakeDiscord();
  s = await startTestServer({ config: CONFIG, env: discordEnv(fake), delivery: FAST_DELIVERY });
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
 * them takes it. Resolves, with the one that did not, once Discord confirmed
 * what the slot queued.
 */
async function runSlotInBoth(at: Date, first: 'server' | 'other'): Promise<Scheduler> {
  const [a, b] = first === 'server' ? [s.scheduler, second] : [second, s.scheduler];
  const ran = await Promise.all([a.runSlot('digests', at), b.runSlot('digests', at)]);
  expect(ran.filter(Boolean)).toHaveLength(1);
  await fake.waitFor(async () => {
    const left = await s.ctx.db.selectFrom('outbox').select('id').where('stream', 'like', 'discord:%').where('state', '!=', 'sent').execute();
    return left.length === 0;
  });
  return ran[0] ? b : a;
}

/** The message calls Discord answered for a channel, as `METHOD path`. */
const messageCalls = (channelId: string): DiscordCall[] => fake.ok().filter((c) => c.path.startsWith(`/channels/${channelId}/messages`));
const steps = (channelId: string) => messageCalls(channelId).map((c) => `${c.method} ${c.path}`);

const MONDAY_LINES = [
  '🔴 Major outage · [Demo Service (major outage)](http://status.test/services/demo-service-major) · _payments, critical_',
  '  🔴 Demo major outage',
  '🟠 Minor issues · [Demo Service (minor outage)](http://status.test/services/demo-service-minor) · _edge_',
  '  🟠 Demo minor outage',
  '🟢 Operational · [Demo Service (always ok)](http://status.test/services/demo-service-ok) · _core_',
  '🟢 Operational · [Acme Cloud](http://status.test/services/acme-cloud) · _hosting, eu_',
];

describe('board digests in Discord', () => {
  it('a slot run by two processes posts one digest per channel', async () => {
    await runSlotInBoth(MONDAY, 'server');
    for (const channel of [DAILY, PINNED]) {
      expect(steps(channel)).toEqual([`POST /channels/${channel}/messages`]);
      expect(fake.channel(channel)).toHaveLength(1);
    }
  });

  it('the digest lists every service of the board worst first, with its status, open incidents and tags', () => {
    for (const channel of [DAILY, PINNED]) {
      const [message] = fake.channel(channel);
      expect(message!.replyTo).toBeNull();
      expect(message!.body.allowed_mentions).toEqual({ parse: [] });
      expect(message!.body.embeds).toHaveLength(1);
      const [embed] = message!.body.embeds;
      expect(embed.title).toBe('Board Vendors');
      expect(embed.color).toBe(Colors.Red);
      expect(embed.timestamp).toBe('2026-11-23T08:00:00.000Z');
      expect(embed.description.split('\n')).toEqual(MONDAY_LINES);
    }
  });

  it('a later slot with nothing changed posts nothing in the only_on_change channel; edit_in_place edits its message', async () => {
    await runSlotInBoth(TUESDAY, 'other');
    expect(steps(DAILY)).toEqual([`POST /channels/${DAILY}/messages`]);
    const [pinned, ...more] = fake.channel(PINNED);
    expect(more).toHaveLength(0);
    expect(steps(PINNED)).toEqual([`POST /channels/${PINNED}/messages`, `PATCH /channels/${PINNED}/messages/${pinned!.id}`]);
    expect(pinned!.edits).toBe(1);
    expect(pinned!.body.embeds[0].description.split('\n')).toEqual(MONDAY_LINES);
    expect(pinned!.body.embeds[0].timestamp).toBe('2026-11-24T08:00:00.000Z');
  });

  it('after the board changed, the next slot posts a new digest in one channel and edits the same message in the other', async () => {
    const added = await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/other-cloud`, { body: { tags: ['backup'] } });
    expect(added.status).toBe(201);
    wednesdayLoser = await runSlotInBoth(WEDNESDAY, 'other');
    const withOther = [...MONDAY_LINES, '🟢 Operational · [Other Cloud](http://status.test/services/other-cloud) · _backup_'];

    expect(steps(DAILY)).toEqual([`POST /channels/${DAILY}/messages`, `POST /channels/${DAILY}/messages`]);
    const daily = fake.channel(DAILY);
    expect(daily).toHaveLength(2);
    expect(daily[1]!.id).not.toBe(daily[0]!.id);
    expect(daily[0]!.edits).toBe(0);
    expect(daily[1]!.body.embeds[0].description.split('\n')).toEqual(withOther);
    expect(daily[1]!.body.embeds[0].timestamp).toBe('2026-11-25T08:00:00.000Z');

    const [pinned, ...more] = fake.channel(PINNED);
    expect(more).toHaveLength(0);
    const edit = `PATCH /channels/${PINNED}/messages/${pinned!.id}`;
    expect(steps(PINNED)).toEqual([`POST /channels/${PINNED}/messages`, edit, edit]);
    expect(pinned!.edits).toBe(2);
    expect(pinned!.body.embeds).toHaveLength(1);
    expect(pinned!.body.embeds[0].description.split('\n')).toEqual(withOther);
    expect(pinned!.body.embeds[0].timestamp).toBe('2026-11-25T08:00:00.000Z');
  });

  it('the slot run again later by the process that did not take it queues nothing more', async () => {
    const before = fake.calls.length;
    // The process that took Wednesday's slot still holds its lease.
    expect(await wednesdayLoser.runSlot('digests', WEDNESDAY)).toBe(false);
    const queued = await s.ctx.db.selectFrom('outbox').select('id').where('event', '=', 'board.digest').execute();
    expect(queued).toHaveLength(5);
    expect(fake.calls.length).toBe(before);
  });
});
