import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/domain/companies/api-keys.js';
import { requestIncidentRoom } from '../../src/domain/chat/incident-room.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

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
});
