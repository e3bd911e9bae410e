import { afterEach, describe, expect, it } from 'vitest';
import { emptyConfig } from '../../src/config/load-config.js';
import { JOBS } from '../../src/jobs/jobs.js';
import { createScheduler } from '../../src/jobs/scheduler.js';
import { createJobDeps } from '../../src/main.js';
import { recordingLogger } from '../helpers/loggers.js';
import type { LogRecord } from '../helpers/loggers.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_BOARD, ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { migrations } from '../../migrations/index.js';

const CONFIG = `
public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    boards:
      - id: ${ACME_BOARD}
        name: Vendors
        urlname: vendors
        services:
          - { urlname: demo-service-ok, tags: [] }
    slack: { team_id: T1 }
    channels:
      - slack: C-DIGEST
        boards:
          - { board: vendors, schedule: "0 9 * * 1-5", timezone: UTC }
`;

const servers: TestServer[] = [];
const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  for (const d of databases.splice(0)) await d.drop();
});

/** What reaches the log at the default level (info): what an operator reads. */
const shown = (records: LogRecord[]) => records.filter((r) => r.level !== 'debug');

describe('job runs in the log', () => {
  it('an idle run is a debug line; a run that did something, or failed, is shown', async () => {
    const s = await startTestServer({ config: CONFIG });
    servers.push(s);
    const logger = recordingLogger();
    const failing = { name: 'failing', schedule: '* * * * * *', run: () => Promise.reject(new Error('the disk is full')) };
    const scheduler = createScheduler({ deps: createJobDeps(s.ctx, emptyConfig(), logger), jobs: [...JOBS, failing] });
    try {
      // A Sunday: no digest fires; nothing due in maintenances or user reports either.
      for (const name of ['digests', 'maintenances', 'user-reports', 'outbox-purge']) {
        expect(await scheduler.runSlot(name, new Date('2026-11-22T09:00:00Z'))).toBe(true);
      }
      expect(shown(logger.records)).toEqual([]);
      expect(logger.records.map((r) => r.message)).toContain('job maintenances: 0 maintenances started or completed');

      expect(await scheduler.runSlot('digests', new Date('2026-11-23T09:00:00Z'))).toBe(true);
      expect(await scheduler.runSlot('failing', new Date('2026-11-23T09:00:01Z'))).toBe(true);
      expect(shown(logger.records).map((r) => [r.level, r.message])).toEqual([
        ['info', 'job digests: 1 digest queued'],
        ['error', 'job failing failed'],
      ]);
      expect(shown(logger.records)[0]!.fields).toMatchObject({ job: 'digests', result: 'ok', changes: 1 });
    } finally {
      await scheduler.stop(5_000);
    }
  });
});

describe('migrations at start', () => {
  it('serve names the migrations it applied in one line, and says nothing when there were none', async () => {
    const database = await createTestDatabase({ migrated: false });
    databases.push(database);
    const first = recordingLogger();
    servers.push(await startTestServer({ config: CONFIG, dbPath: database.path, logger: first }));
    const applied = first.records.filter((r) => r.message.startsWith('applied migrations'));
    expect(applied).toHaveLength(1);
    const all = Object.keys(migrations).sort();
    expect(applied[0]!.message).toBe(`applied migrations ${all.join(', ')}`);
    expect(applied[0]).toMatchObject({ level: 'info', fields: { migrations: all } });
    await servers.pop()!.stop();

    const second = recordingLogger();
    servers.push(await startTestServer({ config: CONFIG, dbPath: database.path, logger: second }));
    expect(second.records.filter((r) => r.message.includes('migration'))).toEqual([]);
  });
});
