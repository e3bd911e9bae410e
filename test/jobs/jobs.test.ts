import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildDigest, firesAt } from '../../src/domain/read/digests/board-digest.js';
import { createDomainContext } from '../../src/domain/context.js';
import { DEMO_PERIOD_MS } from '../../src/domain/model/demo-cycle.js';
import type { DigestAnnouncement, StatusChangeAnnouncement } from '../../src/domain/notifications/announcement.js';
import { openDatabase } from '../../src/db/database.js';
import { JOBS } from '../../src/jobs/jobs.js';
import type { JobDeps } from '../../src/jobs/jobs.js';
import { createScheduler } from '../../src/jobs/scheduler.js';
import { createJobDeps } from '../../src/main.js';
import { emptyConfig } from '../../src/config/load-config.js';
import { manualClock } from '../../src/domain/clock.js';
import { ACME_BOARD, ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { silentLogger as quiet } from '../../src/infrastructure/pino-logger.js';
import { waitUntil } from '../helpers/wait-until.js';
import { recordingLogger } from '../helpers/loggers.js';

const CONFIG = `
public_url: http://status.test
services:
  - { urlname: acme-cloud, name: Acme Cloud }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    custom_monitors:
      - { id: 501, name: Homepage, url: "http://127.0.0.1:9/", probe_type: ping }
    boards:
      - id: ${ACME_BOARD}
        name: Vendors
        urlname: vendors
        services:
          - { urlname: demo-service-ok, tags: [core] }
          - { urlname: acme-cloud, tags: [hosting] }
          - { urlname: demo-service-minor, tags: [edge] }
          - { urlname: demo-service-major, tags: [] }
    slack: { team_id: T1 }
    discord: { guild_id: "G1" }
    channels:
      - slack: C-DEMO
        services: [demo-service]
      - slack: C-DIGEST
        boards:
          - { board: vendors, schedule: "0 9 * * 1-5", timezone: Europe/Berlin, only_on_change: true }
      - discord: "D-DIGEST"
        boards:
          - { board: vendors, schedule: "*/15 * * * *", edit_in_place: true }
`;

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});
async function start() {
  const s = await startTestServer({ config: CONFIG });
  servers.push(s);
  return s;
}
const deps = (s: TestServer): JobDeps => createJobDeps(s.ctx, emptyConfig(), quiet);
const job = (name: string) => JOBS.find((j) => j.name === name)!;
const outbox = (s: TestServer, stream: string) =>
  s.ctx.db.selectFrom('outbox').select(['event', 'payload']).where('stream', '=', stream).orderBy('id').execute();

describe('the demo-cycle job', () => {
  it('changes demo-service at 5-minute boundaries and tells its followers once per change', async () => {
    const s = await start();
    let b = Math.ceil(new Date(T0).getTime() / DEMO_PERIOD_MS) * DEMO_PERIOD_MS;
    while ((b / DEMO_PERIOD_MS) % 4 !== 0) b += DEMO_PERIOD_MS;
    const statuses: string[] = [];
    for (let k = 0; k <= 4; k++) {
      s.clock.set(b + k * DEMO_PERIOD_MS);
      await job('demo-cycle').run(deps(s), s.clock.now());
      await job('demo-cycle').run(deps(s), s.clock.now());
      statuses.push((await s.api('GET', '/api/v2/services/demo-service')).body.data.attributes.status);
    }
    expect(statuses).toEqual(['ok', 'minor', 'ok', 'major', 'ok']);
    const changes = (await outbox(s, 'slack:T1:C-DEMO')).map((r) => JSON.parse(r.payload) as StatusChangeAnnouncement);
    const sinceB = changes.filter((c) => Date.parse(c.at) >= b);
    expect(sinceB.map((c) => `${c.from}->${c.to}`)).toEqual(['ok->minor', 'minor->ok', 'ok->major', 'major->ok']);
    expect(sinceB[0]).toMatchObject({ kind: 'status_change', service: { urlname: 'demo-service', trackerUrl: 'http://status.test/services/demo-service' } });
  });
});

describe('board digests', () => {
  it('list each service with status, open incidents and tags, worst first', async () => {
    const s = await start();
    const digest = await buildDigest(s.ctx, ACME_BOARD);
    expect(digest!.board).toEqual({ id: ACME_BOARD, name: 'Vendors', urlname: 'vendors' });
    expect(digest!.services.map((x) => [x.urlname, x.status, x.tags, x.openIncidents.length])).toEqual([
      ['demo-service-major', 'major', [], 1],
      ['demo-service-minor', 'minor', ['edge'], 1],
      ['demo-service-ok', 'ok', ['core'], 0],
      ['acme-cloud', 'ok', ['hosting'], 0],
    ]);
    expect(digest!.services[0]!.openIncidents[0]).toMatchObject({ title: 'Demo major outage', severity: 'major' });
  });

  it("fire by each subscription's schedule in its time zone", () => {
    // 09:00 in Berlin is 08:00 UTC in winter.
    expect(firesAt('0 9 * * 1-5', 'Europe/Berlin', new Date('2026-11-23T08:00:00Z'))).toBe(true);
    expect(firesAt('0 9 * * 1-5', 'Europe/Berlin', new Date('2026-11-23T09:00:00Z'))).toBe(false);
    expect(firesAt('0 9 * * 1-5', 'Europe/Berlin', new Date('2026-11-22T08:00:00Z'))).toBe(false); // a Sunday
    expect(firesAt('0 9 * * 1-5', 'UTC', new Date('2026-11-23T09:00:42Z'))).toBe(true);
  });

  it('are queued once per slot even with two schedulers on one database, and skipped when nothing changed (only_on_change)', async () => {
    const s = await start();
    const other = openDatabase({ path: s.dbPath });
    try {
      const ctx2 = createDomainContext({ db: other, clock: manualClock(T0), publicUrl: 'http://status.test' });
      const secondDeps = createJobDeps(ctx2, emptyConfig(), quiet);
      const second = createScheduler({ deps: secondDeps, jobs: JOBS });
      const first = createScheduler({ deps: deps(s), jobs: JOBS });
      const monday0800 = new Date('2026-11-23T08:00:00Z');
      const ran = await Promise.all([first.runSlot('digests', monday0800), second.runSlot('digests', monday0800)]);
      expect(ran.filter(Boolean)).toHaveLength(1);
      const slack = await outbox(s, 'slack:T1:C-DIGEST');
      expect(slack.map((r) => r.event)).toEqual(['board.digest']);
      const digest = JSON.parse(slack[0]!.payload) as DigestAnnouncement;
      expect(digest).toMatchObject({ kind: 'digest', editInPlace: false, at: '2026-11-23T08:00:00.000Z', board: { urlname: 'vendors' } });
      // The Discord subscription fires every 15 minutes: 08:00 too.
      expect((await outbox(s, 'discord:G1:D-DIGEST')).map((r) => JSON.parse(r.payload).editInPlace)).toEqual([true]);

      // Next weekday: nothing changed, so Slack's only_on_change digest is skipped.
      expect(await first.runSlot('digests', new Date('2026-11-24T08:00:00Z'))).toBe(true);
      expect(await outbox(s, 'slack:T1:C-DIGEST')).toHaveLength(1);
      await s.api('POST', `/api/v2/boards/${ACME_BOARD}/services/demo-service`);
      expect(await first.runSlot('digests', new Date('2026-11-25T08:00:00Z'))).toBe(true);
      expect(await outbox(s, 'slack:T1:C-DIGEST')).toHaveLength(2);
      await first.stop();
      await second.stop();
      await secondDeps.close();
    } finally {
      await other.destroy();
    }
  });
});

describe('the retention job', () => {
  it('removes resolved incidents older than retention_days in batches and keeps the rest', async () => {
    const s = await start();
    const now = new Date(T0).getTime();
    const day = 86_400_000;
    const rows = Array.from({ length: 1_203 }, (_, i) => ({
      service_id: 1001,
      title: `old ${i}`,
      status: 'minor' as const,
      description: '',
      resolved: 1,
      url: null,
      severity_from_provider: null,
      external_key: null,
      user_generated: 0,
      components: '[]',
      created_at: now - 91 * day,
      updated_at: now - 91 * day,
      resolved_at: now - 91 * day,
    }));
    for (let i = 0; i < rows.length; i += 200)
      await s.ctx.db
        .insertInto('incidents')
        .values(rows.slice(i, i + 200))
        .execute();
    await s.ctx.db
      .insertInto('incidents')
      .values([
        { ...rows[0]!, title: 'old but open', resolved: 0, resolved_at: null },
        { ...rows[0]!, title: 'recent', created_at: now - 89 * day },
      ])
      .execute();
    await s.ctx.db
      .insertInto('monitor_incidents')
      .values([
        { monitor_id: 501, description: 'old', resolved: 1, created_at: now - 100 * day, updated_at: 0, resolved_at: 0 },
        { monitor_id: 501, description: 'new', resolved: 1, created_at: now - day, updated_at: 0, resolved_at: 0 },
      ])
      .execute();
    const summary = await job('retention').run(deps(s), s.clock.now());
    expect(summary).toMatchObject({ summary: expect.stringMatching(/^removed 1203 incidents, 1 monitor incident,/), changes: expect.any(Number) });
    const monitorLeft = await s.ctx.db.selectFrom('monitor_incidents').select('description').execute();
    expect(monitorLeft).toEqual([{ description: 'new' }]);
    const left = await s.ctx.db.selectFrom('incidents').select('title').where('service_id', '=', 1001).orderBy('id').execute();
    expect(left.map((r) => r.title)).toEqual(['old but open', 'recent']);
  });
});

describe('the scheduler', () => {
  it("logs node-cron's word through statusbot's log, never as colored text on the console: a slot skipped by a run still under way is a debug line", async () => {
    const s = await start();
    const logger = recordingLogger();
    const console = vi.spyOn(globalThis.console, 'warn');
    // Under way until the test ends it: the next second's slot finds it still running.
    let finish!: () => void;
    const underWay = new Promise<void>((ok) => (finish = ok));
    const slow = { name: 'slow', schedule: '* * * * * *', run: () => underWay };
    const scheduler = createScheduler({ deps: createJobDeps(s.ctx, emptyConfig(), logger), jobs: [slow] });
    try {
      scheduler.start();
      await waitUntil(() => logger.records.some((r) => r.message.includes('still running')));
      const skipped = logger.records.find((r) => r.message.includes('still running'))!;
      expect(skipped).toMatchObject({ level: 'debug', fields: { job: 'slow' } });
      expect(skipped.message).toMatch(/^job slow: task still running/);
      expect(console.mock.calls.flat().join(' ')).not.toContain('NODE-CRON');
    } finally {
      console.mockRestore();
      finish();
      await scheduler.stop(5_000);
    }
  });

  it('starts only enabled jobs and stops cleanly', async () => {
    const s = await start();
    const scheduler = createScheduler({ deps: deps(s), jobs: JOBS, disabled: new Set(['monitors', 'digests', 'retention', 'demo-cycle']) });
    scheduler.start();
    await scheduler.stop(1000);
    await expect(scheduler.runOnce('nope')).rejects.toThrow('unknown job');
  });
});
