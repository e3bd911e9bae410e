import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentNotification } from '../../src/domain/notifications/incident-notification.js';
import type { StatusChangeAnnouncement } from '../../src/domain/notifications/announcement.js';
import { TEST_ENGINE } from '../helpers/test-database.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    slack: { team_id: T-ACME }
    channels:
      - slack: C-SVC
        services: [acme-api, acme-web]
    status_pages:
      - name: Acme status
        services: [acme-api, acme-web]
        subscribers:
          - { webhook: "https://hooks.acme.example/statusbot", secret: "0123456789abcdef0123" }
`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ config: CONFIG });
});
afterAll(async () => {
  await s?.stop();
});

/** The status changes told of a service, in the order they were queued. */
async function statusChanges(urlname: string): Promise<StatusChangeAnnouncement[]> {
  const rows = await s.ctx.db.selectFrom('outbox').select('payload').where('event', '=', 'service.status_changed').orderBy('id').execute();
  return rows.map((r) => JSON.parse(r.payload) as StatusChangeAnnouncement).filter((a) => a.service.urlname === urlname);
}

const statusOf = async (urlname: string): Promise<string> => (await s.api('GET', `/api/v2/services/${urlname}`)).body.data.attributes.status;

describe('status changes of a service changed from several requests at once', () => {
  it('are told once each: every one starts where the one before it ended, and the last is the status now', async () => {
    const create = (status: 'minor' | 'major') => s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: `A ${status} one`, status } });
    const opened = await Promise.all(['minor', 'major', 'minor', 'major', 'minor', 'minor'].map((st) => create(st as 'minor' | 'major')));
    expect(opened.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const ids: string[] = opened.map((r) => r.body.data.id);
    const resolve = (id: string) => s.api('PATCH', `/api/v2/incidents/${id}`, { body: { resolution_stage: 'resolved', description: 'Fixed' } });
    // The majors and one minor resolve while new ones open.
    const mixed = await Promise.all([resolve(ids[1]!), resolve(ids[3]!), resolve(ids[0]!), create('major'), create('minor')]);
    expect(mixed.map((r) => r.status)).toEqual([200, 200, 200, 201, 201]);
    await Promise.all([s.api('DELETE', `/api/v2/incidents/${mixed[3]!.body.data.id}`), resolve(ids[2]!)]);

    const changes = await statusChanges('acme-api');
    expect(changes.length).toBeGreaterThan(0);
    let at = 'ok';
    for (const change of changes) {
      expect(change.from).toBe(at);
      expect(change.to).not.toBe(change.from);
      at = change.to;
    }
    expect(await statusOf('acme-api')).toBe(at);
  });
});

/** Whether a session on the server's database waits for a lock another holds. */
async function waitsForALock(server: TestServer): Promise<boolean> {
  const waiting = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
  return (await waiting.execute(server.ctx.db)).rows[0]!.n > 0;
}

describe.skipIf(TEST_ENGINE !== 'postgres')('a change that waits for its service', () => {
  it('tells of the status as the change it waited for left it', async () => {
    const client = new pg.Client({ connectionString: s.dbPath });
    await client.connect();
    try {
      // Another writer holds acme-web and opens a major incident on it, unannounced.
      await client.query('begin');
      await client.query('select id from services where id = 1002 for update');
      await client.query(
        `insert into incidents (service_id, title, status, description, resolved, created_at, updated_at)
         values (1002, 'Held', 'major', '', 0, 0, 0)`,
      );
      const created = s.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: 'Waited', status: 'minor' } });
      await waitUntil(() => waitsForALock(s), { what: 'the change to wait for the service' });
      await client.query('commit');
      const res = await created;
      expect(res.status).toBe(201);

      // major before, major after: no status change; subscribers are told the service is major.
      expect(await statusChanges('acme-web')).toEqual([]);
      const notified = await s.ctx.db
        .selectFrom('outbox')
        .select('payload')
        .where('stream', 'like', 'subscriber:%')
        .where('event', '=', 'incident.created')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const notification = JSON.parse(notified.payload) as IncidentNotification;
      expect(notification.incident.id).toBe(Number(res.body.data.id));
      expect(notification.service.status).toBe('major');
      expect(await statusOf('acme-web')).toBe('major');
    } finally {
      await client.end();
    }
  });
});
