import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordProbe } from '../../src/domain/monitors/probe-results.js';
import type { MonitorState } from '../../src/domain/monitors/probe-results.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/*
 * A custom monitor is one more source of the incident pipeline: its regions'
 * quorum decides that it is down or up again; the pipeline opens or resolves
 * its monitor incident and makes the consequences — the channels following
 * the monitor, the company's paging destinations, the audit row — and
 * touches no incident of a service.
 */

const CONFIG = `
public_url: http://status.test
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    custom_monitors:
      - { id: 501, name: Homepage, url: "http://127.0.0.1:9/health", probe_type: ping }
    slack: { team_id: T-ACME }
    channels:
      - { slack: C-OPS, monitors: [501] }
    notify:
      - { pagerduty: { routing_key: "R0UT1NGKEY0123456789" } }
`;

let s: TestServer;
let monitor: MonitorState;
beforeAll(async () => {
  s = await startTestServer({ config: CONFIG });
  const row = await s.ctx.db.selectFrom('custom_monitors').selectAll().where('id', '=', 501).executeTakeFirstOrThrow();
  monitor = { id: 501, companyId: Number(row.company_id), name: row.name, url: row.url, status: 'ok', consecutiveFailures: 0 };
});
afterAll(async () => {
  await s?.stop();
});

/** The rows a step added: outbox rows as `stream event`, audit actions, monitor incidents. */
async function rowsAddedBy(step: () => Promise<unknown>) {
  const db = s.ctx.db;
  const maxId = async (table: 'outbox' | 'audit_events' | 'incidents') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst()
      )?.id ?? 0,
    );
  const [outbox, audit, incidents] = [await maxId('outbox'), await maxId('audit_events'), await maxId('incidents')];
  await step();
  return {
    outbox: (await db.selectFrom('outbox').select(['stream', 'event']).where('id', '>', outbox).orderBy('id').execute()).map((r) => `${r.stream} ${r.event}`),
    audit: (await db.selectFrom('audit_events').select('action').where('id', '>', audit).orderBy('id').execute()).map((r) => r.action),
    incidents: Number(await maxId('incidents')) - incidents,
    monitorIncidents: await db.selectFrom('monitor_incidents').select(['description', 'resolved']).where('monitor_id', '=', 501).orderBy('id').execute(),
  };
}

describe('a custom monitor, as a source of the incident pipeline', () => {
  it('down: opens its monitor incident, tells the channel following it and the pager, audits it', async () => {
    const failed = { ok: false as const, reason: 'HTTP 503' };
    monitor = (await recordProbe(s.ctx, monitor, failed, 'local')).state;
    const added = await rowsAddedBy(async () => {
      const recorded = await recordProbe(s.ctx, monitor, failed, 'local');
      expect(recorded.change).toBe('down');
      monitor = recorded.state;
    });
    expect(added.monitorIncidents).toEqual([{ description: 'Down in local: HTTP 503', resolved: 0 }]);
    expect(added.outbox).toEqual([expect.stringMatching(/^slack:T-ACME:C-OPS monitor\.down$/), expect.stringMatching(/^pagerduty:\d+ monitor\.down$/)]);
    expect(added.audit).toEqual(['custom_monitor.down']);
    expect(added.incidents).toBe(0);
  });

  it('recovered: resolves it, tells the same, audits it', async () => {
    const added = await rowsAddedBy(async () => {
      const recorded = await recordProbe(s.ctx, monitor, { ok: true }, 'local');
      expect(recorded.change).toBe('recovered');
    });
    expect(added.monitorIncidents).toEqual([{ description: 'Down in local: HTTP 503', resolved: 1 }]);
    expect(added.outbox).toEqual([
      expect.stringMatching(/^slack:T-ACME:C-OPS monitor\.recovered$/),
      expect.stringMatching(/^pagerduty:\d+ monitor\.recovered$/),
    ]);
    expect(added.audit).toEqual(['custom_monitor.recover']);
    expect(added.incidents).toBe(0);
  });
});
