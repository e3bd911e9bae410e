import { afterEach, describe, expect, it } from 'vitest';
import { emptyConfig, parseConfig } from '../../src/config/load-config.js';
import type { DomainContext } from '../../src/domain/context.js';
import { purgeSentOutbox } from '../../src/delivery/outbox-purge.js';
import { listOutbox } from '../../src/delivery/outbox-queue.js';
import { silentLogger as quiet } from '../../src/infrastructure/pino-logger.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { createJobDeps } from '../../src/main.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

const DAY = 86_400_000;
const OLD_SENT = 2_503;

/** Sent rows older than a week (many), and beside them rows that must stay. */
async function agedOutbox(): Promise<TestServer> {
  const s = await startTestServer();
  servers.push(s);
  const { id: companyId } = await s.ctx.db.selectFrom('companies').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
  const now = s.clock.now().getTime();
  const row = (event: string, state: 'pending' | 'sent' | 'dead', createdDaysAgo: number, sentDaysAgo: number | null) => ({
    company_id: companyId,
    stream: `subscriber:${event}`,
    event,
    payload: '{}',
    state,
    next_attempt_at: now,
    created_at: now - createdDaysAgo * DAY,
    sent_at: sentDaysAgo === null ? null : now - sentDaysAgo * DAY,
  });
  const rows = [
    row('old-pending', 'pending', 30, null),
    ...Array.from({ length: OLD_SENT }, () => row('old-sent', 'sent', 9, 8)),
    row('old-dead', 'dead', 30, null),
    row('sent-late', 'sent', 10, 1),
    row('recent-sent', 'sent', 6, 6),
    row('new-pending', 'pending', 0, null),
  ];
  for (let i = 0; i < rows.length; i += 500)
    await s.ctx.db
      .insertInto('outbox')
      .values(rows.slice(i, i + 500))
      .execute();
  return s;
}

const kept = async (s: TestServer) => (await listOutbox(s.ctx, { limit: 10_000 })).map((e) => `${e.event} ${e.state}`);
const STAYING = ['old-pending pending', 'old-dead dead', 'sent-late sent', 'recent-sent sent', 'new-pending pending'];

describe('the outbox-purge job', () => {
  it('removes notifications sent more than outbox.retention_days ago; pending rows, dead letters and newer sent rows stay', async () => {
    const s = await agedOutbox();
    const purge = JOBS.find((j) => j.name === 'outbox-purge')!;
    const summary = await purge.run(createJobDeps(s.ctx, emptyConfig(), quiet), s.clock.now());
    expect(summary).toEqual({ summary: `removed ${OLD_SENT} sent notifications`, changes: OLD_SENT });
    expect(await kept(s)).toEqual(STAYING);
    // Nothing is left for a second run.
    expect(await purge.run(createJobDeps(s.ctx, emptyConfig(), quiet), s.clock.now())).toEqual({ summary: 'removed 0 sent notifications', changes: 0 });
  });

  it('keeps sent rows for as many days as outbox.retention_days says', async () => {
    const s = await agedOutbox();
    const { config } = parseConfig('test.yml', 'outbox: { retention_days: 9 }\n');
    const purge = JOBS.find((j) => j.name === 'outbox-purge')!;
    expect(await purge.run(createJobDeps(s.ctx, config, quiet), s.clock.now())).toEqual({ summary: 'removed 0 sent notifications', changes: 0 });
    expect((await kept(s)).length).toBe(OLD_SENT + STAYING.length);
  });

  it('deletes in batches, each in a write of its own', async () => {
    const s = await agedOutbox();
    let writes = 0;
    const ctx: DomainContext = Object.create(s.ctx, {
      write: {
        value: (unit: Parameters<DomainContext['write']>[0]) => {
          writes++;
          return s.ctx.write(unit);
        },
      },
    });
    expect(await purgeSentOutbox(ctx, { retentionDays: 7, batchSize: 500 })).toBe(OLD_SENT);
    expect(writes).toBeGreaterThanOrEqual(Math.ceil(OLD_SENT / 500));
    expect(await kept(s)).toEqual(STAYING);
  });
});
