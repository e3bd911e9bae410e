import { afterEach, describe, expect, it } from 'vitest';
import { acmeConfig, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const KINDS = ['webhook', 'email', 'slack', 'discord', 'pagerduty', 'opsgenie', 'teams', 'telegram', 'other'];

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

/** The values of one metric by its `kind` label, from a scrape. */
async function byKind(s: TestServer, name: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const found: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${name}\\{kind="(\\w+)"\\} (\\S+)$`, 'gm'))) found[m[1]!] = Number(m[2]);
  return found;
}

describe('statusbot_outbox_pending and statusbot_outbox_oldest_pending_age_seconds', () => {
  it('show every destination kind, at 0 while nothing waits, so that an alert on them has a series', async () => {
    const s = await startTestServer({ config: acmeConfig() });
    servers.push(s);
    const zero = Object.fromEntries(KINDS.map((k) => [k, 0]));
    expect(await byKind(s, 'statusbot_outbox_pending')).toEqual(zero);
    expect(await byKind(s, 'statusbot_outbox_oldest_pending_age_seconds')).toEqual(zero);
  });

  it('count a backlog of PagerDuty, Opsgenie, Teams and Telegram each under its own kind', async () => {
    const s = await startTestServer({ config: acmeConfig() });
    servers.push(s);
    const company = await s.ctx.db.selectFrom('companies').select('id').executeTakeFirstOrThrow();
    const now = s.clock.now().getTime();
    const row = (stream: string, ageSeconds: number) => ({
      company_id: company.id,
      subscriber_id: null,
      stream,
      event: 'incident.created',
      payload: '{}',
      state: 'pending' as const,
      next_attempt_at: now,
      created_at: now - ageSeconds * 1000,
    });
    await s.ctx.db
      .insertInto('outbox')
      .values([row('pagerduty:1', 60), row('pagerduty:1', 5), row('opsgenie:2', 30), row('teams:3', 20), row('telegram:4', 10)])
      .execute();
    const pending = await byKind(s, 'statusbot_outbox_pending');
    expect(pending).toMatchObject({ pagerduty: 2, opsgenie: 1, teams: 1, telegram: 1, other: 0, webhook: 0 });
    const age = await byKind(s, 'statusbot_outbox_oldest_pending_age_seconds');
    expect(age).toMatchObject({ pagerduty: 60, opsgenie: 30, teams: 20, telegram: 10, other: 0 });
  });
});
