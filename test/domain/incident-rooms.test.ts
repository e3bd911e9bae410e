import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/domain/companies/api-keys.js';
import { setIncidentLead } from '../../src/domain/incident-chat/set-incident-lead.js';
import { requestIncidentRoom } from '../../src/domain/incident-chat/request-incident-room.js';
import { roomOpened } from '../../src/domain/incident-chat/room-outcomes.js';
import { createTestDatabase, TEST_ENGINE } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const CONFIG = `
public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    slack: { team_id: T-ACME }
    chat: { incident_channels: true }
`;

const BARRIER_KEY = 7_304_211;

/**
 * PostgreSQL: holds every transaction that wrote the incident's lead or room
 * at its commit, until two transactions wait (at the barrier, or for each
 * other's locks) and `release` lets them go: both have then run every
 * statement before either commits, the overlap of two replicas at its worst.
 */
async function commitBarrier(url: string, incidentId: number) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`create function commit_barrier() returns trigger language plpgsql as $$
    begin
      if new.incident_id = ${incidentId} then perform pg_advisory_xact_lock_shared(${BARRIER_KEY}); end if;
      return null;
    end $$`);
  const tables = ['incident_leads', 'incident_rooms'];
  for (const table of tables) {
    await client.query(`create constraint trigger commit_barrier after insert or update on ${table}
      deferrable initially deferred for each row execute function commit_barrier()`);
  }
  await client.query('select pg_advisory_lock($1)', [BARRIER_KEY]);
  const waiting = async () => {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    return rows[0]!.n >= 2;
  };
  return {
    async release() {
      await waitUntil(waiting, { what: 'both transactions at the barrier or waiting for each other' });
      await client.query('select pg_advisory_unlock($1)', [BARRIER_KEY]);
    },
    async remove() {
      for (const table of tables) await client.query(`drop trigger commit_barrier on ${table}`);
      await client.query('drop function commit_barrier()');
      await client.end();
    },
  };
}

/** Two replicas on one database, each asked for the same incident's room at once. */
describe('incident rooms across replicas', () => {
  let database: TestDatabase;
  const replicas: TestServer[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    for (let i = 0; i < 2; i++) replicas.push(await startTestServer({ dbPath: database.path, config: CONFIG }));
  });
  afterAll(async () => {
    for (const r of replicas) await r.stop();
    await database?.drop();
  });

  it('queue one opening, whoever asks first', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const res = await a.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Twice asked', description: 'x' } });
    expect(res.status, res.text).toBe(201);
    const id = Number(res.body.data.id);
    const where = { platform: 'slack' as const, workspaceId: 'T-ACME', requestedIn: null };
    const asks = await Promise.all(
      [a, b, a, b].map(async (s, i) => {
        const company = await authenticate(s.ctx, ACME_KEY);
        return requestIncidentRoom(s.ctx.actingAs({ actor: `slack:T-ACME/U${i}`, requestId: null }), company, id, where);
      }),
    );
    expect(asks.filter((x) => x.queued)).toHaveLength(1);
    expect(new Set(asks.map((x) => x.room.name))).toEqual(new Set([`inc-${id}-twice-asked`]));
    const rows = await a.ctx.db.selectFrom('incident_rooms').select(['incident_id', 'state', 'attempt']).where('incident_id', '=', id).execute();
    expect(rows.map((r) => [Number(r.incident_id), r.state, Number(r.attempt)])).toEqual([[id, 'opening', 1]]);
    const openings = await a.ctx.db
      .selectFrom('outbox')
      .select('stream')
      .where('event', '=', 'incident.room')
      .where('stream', '=', `slack:T-ACME:room-${id}`)
      .execute();
    expect(openings).toHaveLength(1);

    // The opening given up after its retries: asking again tries that opening again (a channel it made is kept), once.
    await a.ctx.db.updateTable('outbox').set({ state: 'dead', attempts: 10 }).where('stream', '=', `slack:T-ACME:room-${id}`).execute();
    const company = await authenticate(b.ctx, ACME_KEY);
    const retried = await Promise.all([a, b].map((s) => requestIncidentRoom(s.ctx, company, id, where)));
    expect(retried.filter((x) => x.queued)).toHaveLength(1);
    expect(retried[0]).toMatchObject({ room: { state: 'opening', attempt: 1, name: `inc-${id}-twice-asked` } });
    const after = await a.ctx.db.selectFrom('outbox').select(['state', 'attempts']).where('stream', '=', `slack:T-ACME:room-${id}`).execute();
    expect(after.map((r) => [r.state, Number(r.attempts)])).toEqual([['pending', 0]]);

    // Refused by the platform: asking again opens it under the next attempt's name.
    await a.ctx.db.updateTable('incident_rooms').set({ state: 'failed', error: 'name_taken' }).where('incident_id', '=', id).execute();
    const again = await requestIncidentRoom(b.ctx, company, id, where);
    expect(again).toMatchObject({ queued: true, room: { state: 'opening', attempt: 2, name: `inc-${id}-twice-asked-2` } });
  });

  it('invite the lead named on one while the room opens on the other', async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const res = await a.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Led at once', description: 'x' } });
    expect(res.status, res.text).toBe(201);
    const id = Number(res.body.data.id);
    const company = await authenticate(a.ctx, ACME_KEY);
    const where = { platform: 'slack' as const, workspaceId: 'T-ACME', requestedIn: null };
    await requestIncidentRoom(a.ctx.actingAs({ actor: 'slack:T-ACME/UASKER', requestId: null }), company, id, where);

    // The lead is named on one replica while the other records the room the platform just opened.
    const barrier = TEST_ENGINE === 'postgres' ? await commitBarrier(database.path, id) : null;
    try {
      const named = setIncidentLead(a.ctx.actingAs({ actor: 'slack:T-ACME/UASKER', requestId: null }), company, id, 'slack', { lead: 'ULEAD' });
      const opened = roomOpened(b.ctx, { incidentId: id, attempt: 1, channelId: 'CROOM', invited: ['UASKER'] });
      await barrier?.release();
      await Promise.all([named, opened]);
    } finally {
      await barrier?.remove();
    }

    // Either change invites the lead into the room, once.
    const openings = await a.ctx.db
      .selectFrom('outbox')
      .select('payload')
      .where('event', '=', 'incident.room')
      .where('stream', '=', `slack:T-ACME:room-${id}`)
      .orderBy('id')
      .execute();
    const invites = openings.map((o) => JSON.parse(o.payload) as { channelId: string | null; invite: string[] });
    expect(invites.map((o) => [o.channelId, o.invite])).toEqual([
      [null, ['UASKER']],
      ['CROOM', ['ULEAD']],
    ]);
  });
});
