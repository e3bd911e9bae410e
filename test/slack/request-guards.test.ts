import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { recordingLogger } from '../helpers/loggers.js';
import type { LogRecord } from '../helpers/loggers.js';
import { ACME_TEAM, GLOBEX_TEAM, SLACK_CONFIG, answersTo, commandBody, postEvent, sign, slackEnv, submission, viewsOpenedWith } from '../helpers/slack.js';
import type { CommandFields } from '../helpers/slack.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const startServer = (fake: FakeSlack, options: { dbPath?: string; config?: string; logger?: ReturnType<typeof recordingLogger> } = {}) =>
  startTestServer({
    config: options.config ?? SLACK_CONFIG,
    env: slackEnv(fake),
    ...(options.dbPath ? { dbPath: options.dbPath } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });

async function incident(s: TestServer, id: number) {
  const res = await s.api('GET', `/api/v2/incidents/${id}`);
  return res.body.data.attributes as { title: string; resolved: boolean; updates: unknown[] };
}

async function titled(s: TestServer, title: string): Promise<number> {
  const rows = await s.ctx.db.selectFrom('incidents').select('id').where('title', '=', title).execute();
  return rows.length;
}

const replayWarnings = (records: LogRecord[]) => records.filter((r) => r.level === 'warn' && /replayed/.test(r.message));

/** The values a user submits in a modal the app opened: what it shows, with the title typed in. */
function filledIn(view: any, title: string): Record<string, string | { option: string } | null> {
  const values: Record<string, string | { option: string } | null> = {};
  for (const block of view.blocks.filter((b: any) => b.type === 'input')) {
    const shown = block.element.initial_option?.value ?? block.element.initial_value ?? null;
    values[block.block_id] = block.element.type === 'static_select' ? (shown === null ? null : { option: shown }) : shown;
  }
  values.title = title;
  return values;
}

describe('a replayed Slack request is answered without acting again', () => {
  let database: TestDatabase;
  let fake: FakeSlack;
  let s: TestServer;
  const logger = recordingLogger();
  beforeAll(async () => {
    database = await createTestDatabase();
    fake = await startFakeSlack();
    s = await startServer(fake, { dbPath: database.path, logger });
  });
  afterAll(async () => {
    await s?.stop();
    await fake?.close();
    await database?.drop();
  });

  it('the same signed /incident resolve sent twice resolves once; the replay gets 200 with no body, and a warning is logged', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Replayed resolve' } });
    const id = created.body.data.id as number;
    const { id: responseId, body } = commandBody(fake, { command: '/incident', text: `resolve ${id} Cable replaced` });
    const timestamp = nowSeconds();

    expect((await postEvent(s, body, { timestamp })).status).toBe(200);
    await fake.waitFor(() => answersTo(fake, responseId).length > 0);
    const resolved = await incident(s, id);
    expect(resolved.resolved).toBe(true);

    const replay = await postEvent(s, body, { timestamp });
    expect(replay).toMatchObject({ status: 200, text: '' });
    await pause(100);
    expect(answersTo(fake, responseId)).toHaveLength(1);
    expect((await incident(s, id)).updates).toHaveLength(resolved.updates.length);
    const [warning, ...more] = replayWarnings(logger.records);
    expect(more).toEqual([]);
    expect(warning!.message).toMatch(/^slack: refused a replayed request/);
    expect(warning!.fields).toMatchObject({ path: '/slack/events', workspace: ACME_TEAM, address: '127.0.0.1' });
  });

  it('a replay spelled differently (timestamp 0-padded, a suffix after the signature that the check ignores) is still a replay', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Respelled replay' } });
    const id = created.body.data.id as number;
    const { id: responseId, body } = commandBody(fake, { command: '/incident', text: `resolve ${id}` });
    const timestamp = nowSeconds();
    expect((await postEvent(s, body, { timestamp })).status).toBe(200);
    await fake.waitFor(() => answersTo(fake, responseId).length > 0);
    const before = (await incident(s, id)).updates.length;

    for (const variant of [
      { 'x-slack-request-timestamp': `0${timestamp}`, 'x-slack-signature': sign(timestamp, body) },
      { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': `${sign(timestamp, body)}=again` },
    ]) {
      const res = await fetch(`${s.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...variant },
        body,
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
    }
    await pause(100);
    expect(answersTo(fake, responseId)).toHaveLength(1);
    expect((await incident(s, id)).updates).toHaveLength(before);
  });

  it('a form submission replayed to another replica of the same database, and after a restart, opens one incident', async () => {
    const opener = commandBody(fake, { command: '/incident', text: 'new acme-api' });
    expect((await postEvent(s, opener.body)).status).toBe(200);
    const [opened] = await fake.waitFor(() => {
      const calls = viewsOpenedWith(fake, opener.triggerId);
      return calls.length > 0 ? calls : null;
    });
    const view = opened!.body.view;
    const submitted = new URLSearchParams({ payload: JSON.stringify(submission(view, filledIn(view, 'Submitted once'))) }).toString();
    const timestamp = nowSeconds();

    expect(await postEvent(s, submitted, { timestamp })).toMatchObject({ status: 200, text: '' });
    await fake.waitFor(() => answersTo(fake, opener.id).length > 0);
    expect(await titled(s, 'Submitted once')).toBe(1);

    const replica = await startServer(fake, { dbPath: database.path });
    try {
      expect(await postEvent(replica, submitted, { timestamp })).toMatchObject({ status: 200, text: '' });
    } finally {
      await replica.stop();
    }
    // A new process on the same database: what was seen is still known.
    const restarted = await startServer(fake, { dbPath: database.path });
    try {
      expect(await postEvent(restarted, submitted, { timestamp })).toMatchObject({ status: 200, text: '' });
    } finally {
      await restarted.stop();
    }
    await pause(100);
    expect(await titled(s, 'Submitted once')).toBe(1);
    expect(answersTo(fake, opener.id)).toHaveLength(1);
  });

  it('two different requests with the same text are both taken', async () => {
    const fields: CommandFields = { command: '/statusbot', text: 'help' };
    for (let i = 0; i < 2; i++) {
      const { id, body } = commandBody(fake, fields);
      expect((await postEvent(s, body)).status).toBe(200);
      await fake.waitFor(() => answersTo(fake, id).length > 0);
    }
  });
});

describe('Slack requests are rate limited per workspace and per address', () => {
  let fake: FakeSlack;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await fake?.close();
  });
  const start = async (extra: string) => {
    const s = await startServer(fake, { config: `${SLACK_CONFIG}${extra}\n` });
    servers.push(s);
    return s;
  };
  const help = (team: string) => commandBody(fake, { command: '/statusbot', text: 'help', team });

  it('a workspace over chat.rate_limit.per_minute gets an ephemeral "slow down" (HTTP 200), nothing runs; another workspace is not limited', async () => {
    const s = await start('chat: { rate_limit: { per_minute: 3 } }');
    for (let i = 0; i < 3; i++) {
      const { id, body } = help(ACME_TEAM);
      expect((await postEvent(s, body)).status).toBe(200);
      await fake.waitFor(() => answersTo(fake, id).length > 0);
    }
    const limited = help(ACME_TEAM);
    const res = await postEvent(s, limited.body);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      response_type: 'ephemeral',
      text: expect.stringMatching(/^Too many requests at once; nothing was done\. Please try again in \d+ seconds?\.$/),
    });

    // A form submitted meanwhile stays open, the message under its first field.
    const form = await postEvent(
      s,
      new URLSearchParams({
        payload: JSON.stringify(submission({ callback_id: 'incident_new', private_metadata: '{}' }, { service: null, title: 'x' })),
      }).toString(),
    );
    expect(form.json).toEqual({ response_action: 'errors', errors: { service: expect.stringMatching(/^Too many requests/) } });

    const other = help(GLOBEX_TEAM);
    expect((await postEvent(s, other.body)).status).toBe(200);
    await fake.waitFor(() => answersTo(fake, other.id).length > 0);
    await pause(100);
    expect(answersTo(fake, limited.id)).toEqual([]);
  });

  it('an address over chat.rate_limit.per_address_per_minute is limited whatever the workspace, before the signature is checked', async () => {
    const s = await start('chat: { rate_limit: { per_address_per_minute: 3 } }');
    expect((await postEvent(s, help(ACME_TEAM).body, { signature: 'v0=forged' })).status).toBe(401);
    for (const team of [ACME_TEAM, GLOBEX_TEAM]) {
      const { id, body } = help(team);
      expect((await postEvent(s, body)).status).toBe(200);
      await fake.waitFor(() => answersTo(fake, id).length > 0);
    }
    const limited = help(GLOBEX_TEAM);
    const res = await postEvent(s, limited.body);
    expect(res.json).toMatchObject({ response_type: 'ephemeral', text: expect.stringMatching(/^Too many requests/) });
    await pause(100);
    expect(answersTo(fake, limited.id)).toEqual([]);
  });

  it('behind a trusted proxy, each client address has its own budget', async () => {
    const s = await start('chat: { rate_limit: { per_address_per_minute: 2 } }\nhttp: { trust_proxy: [127.0.0.1] }');
    const answered: string[] = [];
    const from = async (address: string) => {
      const { id, body } = help(ACME_TEAM);
      const timestamp = nowSeconds();
      const res = await fetch(`${s.url}/slack/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': sign(timestamp, body),
          'x-forwarded-for': address,
        },
        body,
      });
      const limited = (await res.text()).includes('Too many requests');
      if (!limited) answered.push(id);
      return limited;
    };
    expect([await from('192.0.2.1'), await from('192.0.2.1'), await from('192.0.2.1')]).toEqual([false, false, true]);
    expect(await from('192.0.2.2')).toBe(false);
    await fake.waitFor(() => answered.every((id) => answersTo(fake, id).length > 0));
  });
});
