import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import type { TestServer } from '../helpers/test-server.js';
import { ACME_KEY, ACME_TEAM, BOARD_ID, GLOBEX_KEY, GLOBEX_TEAM, ask, commandBody, postEvent, startSlackServer } from './slack-harness.js';

let fake: FakeSlack;
let s: TestServer;
beforeAll(async () => {
  fake = await startFakeSlack();
  s = await startSlackServer(fake);
});
afterAll(async () => {
  await s.stop();
  await fake.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const NOT_LINKED = /not linked to a statusbot company yet: run `\/statusbot link <api-key>`/;

async function createIncident(body: Record<string, unknown>, key = ACME_KEY) {
  const res = await s.api('POST', '/api/v2/incidents', { key, body });
  expect(res.status, res.text).toBe(201);
  return Number(res.body.data.id);
}

describe('an unlinked workspace', () => {
  const team = 'TUNLINKED';

  it('gets one ephemeral line on how to link for every command but help and link', async () => {
    for (const [command, text] of [
      ['/incident', 'list'],
      ['/incident', 'new'],
      ['/incident', 'show 1'],
      ['/status', 'acme-api'],
      ['/statusbot', 'subscriptions'],
      ['/statusbot', 'subscribe incidents'],
    ] as const) {
      const { ack, answer } = await ask(s, fake, { command, text, team });
      expect(ack.status).toBe(200);
      expect(ack.text).toBe('');
      expect(answer.response_type).toBe('ephemeral');
      expect(answer.text).toMatch(NOT_LINKED);
      expect(answer.text.split('\n')).toHaveLength(1);
    }
    expect(fake.calls.filter((c) => c.method === 'views.open')).toEqual([]);
  });

  it('gets help', async () => {
    const { answer } = await ask(s, fake, { command: '/statusbot', text: 'help', team });
    expect(answer.response_type).toBe('ephemeral');
    for (const verb of ['/incident new', '/incident resolve', '/status', '/statusbot subscribe', '/statusbot link']) {
      expect(answer.text).toContain(verb);
    }
  });
});

describe('/statusbot link', () => {
  const team = 'TNEWTEAM';

  it('refuses a wrong key ephemerally, without echoing or logging it, and links nothing', async () => {
    const secret = 'wrong-key-0123456789';
    const log = vi.spyOn(console, 'log');
    const error = vi.spyOn(console, 'error');
    const { answer } = await ask(s, fake, { command: '/statusbot', text: `link ${secret}`, team });
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toMatch(/not valid/);
    expect(answer.text).not.toContain(secret);
    expect(JSON.stringify([...log.mock.calls, ...error.mock.calls])).not.toContain(secret);
    expect(await s.ctx.db.selectFrom('chat_links').selectAll().where('workspace_id', '=', team).execute()).toEqual([]);
  });

  it('links the workspace to the key\'s company; the answer names the company, not the key', async () => {
    const log = vi.spyOn(console, 'log');
    const { answer } = await ask(s, fake, { command: '/statusbot', text: `link ${GLOBEX_KEY}`, team });
    expect(answer).toMatchObject({ response_type: 'ephemeral' });
    expect(answer.text).toContain('Globex');
    expect(answer.text).not.toContain(GLOBEX_KEY);
    expect(JSON.stringify(log.mock.calls)).not.toContain(GLOBEX_KEY);
    const rows = await s.ctx.db.selectFrom('chat_links').select(['platform', 'company_id']).where('workspace_id', '=', team).execute();
    const globex = await s.ctx.db.selectFrom('companies').select('id').where('name', '=', 'Globex').executeTakeFirstOrThrow();
    expect(rows).toEqual([{ platform: 'slack', company_id: globex.id }]);

    const list = await ask(s, fake, { command: '/incident', text: 'list', team });
    expect(list.answer.text).toBe('No open incidents. :tada:');
  });

  it('answers usage without a key', async () => {
    const { answer } = await ask(s, fake, { command: '/statusbot', text: 'link', team: GLOBEX_TEAM });
    expect(answer.text).toMatch(/^Usage: `\/statusbot link <api-key>`/);
  });
});

describe('/statusbot subscribe | unsubscribe | subscriptions', () => {
  const channel = 'CSUBS';
  const rows = () =>
    s.ctx.db
      .selectFrom('channel_subscriptions')
      .select(['kind', 'service_id', 'board_id', 'schedule', 'timezone', 'only_on_change', 'edit_in_place', 'workspace_id'])
      .where('channel_id', '=', channel)
      .orderBy('id')
      .execute();
  const run = (text: string) => ask(s, fake, { command: '/statusbot', text, channel });

  it('subscribes the channel to incidents, a service and a board with digest settings', async () => {
    expect((await run('subscriptions')).answer.text).toMatch(/follows nothing yet/);
    expect((await run('subscribe incidents')).answer.text).toMatch(/^This channel now follows incidents of your company's services/);
    expect((await run('subscribe service acme-cloud')).answer.text).toContain('status changes of Acme Cloud');
    const board = await run('subscribe board vendors schedule=“0 8 * * 1-5” timezone=Europe/Berlin only-on-change');
    expect(board.answer.text).toContain('digest of board Vendors');
    expect(await rows()).toEqual([
      { kind: 'incidents', service_id: null, board_id: null, schedule: null, timezone: null, only_on_change: 0, edit_in_place: 0, workspace_id: ACME_TEAM },
      expect.objectContaining({ kind: 'service', board_id: null, workspace_id: ACME_TEAM }),
      { kind: 'board', service_id: null, board_id: BOARD_ID, schedule: '0 8 * * 1-5', timezone: 'Europe/Berlin', only_on_change: 1, edit_in_place: 0, workspace_id: ACME_TEAM },
    ]);

    const list = (await run('subscriptions')).answer.text;
    expect(list).toContain("incidents of your company's services");
    expect(list).toContain('Acme Cloud');
    expect(list).toContain('`0 8 * * 1-5` Europe/Berlin, only on change');
  });

  it('subscribing again updates the digest settings', async () => {
    await run(`subscribe board ${BOARD_ID} schedule="30 7 * * *" edit-in-place`);
    const board = (await rows()).filter((r) => r.kind === 'board');
    expect(board).toEqual([expect.objectContaining({ schedule: '30 7 * * *', timezone: 'UTC', only_on_change: 0, edit_in_place: 1 })]);
  });

  it('explains invalid input and changes nothing', async () => {
    const before = await rows();
    const cases: [string, RegExp][] = [
      ['subscribe board vendors timezone=Mars/Olympus', /timezone must be an IANA time zone/],
      ['subscribe board vendors schedule="every day"', /schedule must be a cron expression/],
      ['subscribe board vendors colour=blue', /colour is not a known field/],
      ['subscribe service no-such-service', /The service does not exist/],
      ['subscribe service globex-api', /The service does not exist/],
      ['subscribe everything', /target must be one of/],
      ['subscribe board nope', /The board does not exist/],
    ];
    for (const [text, expected] of cases) {
      const { answer } = await run(text);
      expect(answer.response_type).toBe('ephemeral');
      expect(answer.text, text).toMatch(expected);
    }
    expect(await rows()).toEqual(before);
  });

  it('unsubscribes, and says so when the channel did not follow that', async () => {
    expect((await run('unsubscribe service acme-cloud')).answer.text).toBe('This channel no longer follows service acme-cloud.');
    expect((await rows()).map((r) => r.kind)).toEqual(['incidents', 'board']);
    expect((await run('unsubscribe service acme-cloud')).answer.text).toMatch(/does not follow that/);
    await run('unsubscribe incidents');
    await run('unsubscribe board vendors');
    expect(await rows()).toEqual([]);
  });

  it('a channel that follows one company cannot follow another', async () => {
    const { answer } = await ask(s, fake, { command: '/statusbot', text: 'subscribe incidents', channel: 'CINCIDENTS', team: 'TNEWTEAM' });
    expect(answer.text).toMatch(/already follows another company/);
  });
});

describe('/incident list | show | resolve', () => {
  it('lists the open incidents of the company only', async () => {
    const mine = await createIncident({ service_id: 1001, title: 'API <errors> & timeouts', status: 'major' });
    const theirs = await createIncident({ service_id: 2001, title: 'Globex trouble' }, GLOBEX_KEY);
    const { answer } = await ask(s, fake, { command: '/incident', text: 'list' });
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain(`*#${mine}* :red_circle: API &lt;errors&gt; &amp; timeouts — Acme API`);
    expect(answer.text).not.toContain(`#${theirs}`);
  });

  it('shows an incident with its timeline', async () => {
    const id = await createIncident({ service_id: 1002, title: 'Slow pages', description: 'Looking into it' });
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Cache node replaced', resolution_stage: 'monitoring' } });
    const { answer } = await ask(s, fake, { command: '/incident', text: `show #${id}` });
    expect(answer.text).toMatch(new RegExp(`^\\*#${id} Slow pages\\* — Acme Web`));
    const investigating = answer.text.indexOf('*Investigating* — Looking into it');
    const monitoring = answer.text.indexOf('*Monitoring* — Cache node replaced');
    expect(investigating).toBeGreaterThan(0);
    expect(monitoring).toBeGreaterThan(investigating);
  });

  it('does not show another company\'s incident', async () => {
    const theirs = await createIncident({ service_id: 2001, title: 'Secret' }, GLOBEX_KEY);
    const { answer } = await ask(s, fake, { command: '/incident', text: `show ${theirs}` });
    expect(answer.text).toMatch(/The incident does not exist/);
    expect(answer.text).not.toContain('Secret');
  });

  it('resolves with the message as typed', async () => {
    const id = await createIncident({ service_id: 1001, title: 'Queue backlog' });
    const { answer } = await ask(s, fake, { command: '/incident', text: `resolve ${id}   Drained the queue,  all good` });
    expect(answer.text).toBe(`Resolved incident *#${id}*: Queue backlog`);
    const res = await s.api('GET', `/api/v2/incidents/${id}`);
    expect(res.body.data.attributes.resolved).toBe(true);
    expect(res.body.data.attributes.updates.at(-1)).toMatchObject({ status: 'resolved', description: 'Drained the queue,  all good' });
  });

  it('answers usage for a missing or malformed id', async () => {
    for (const text of ['resolve', 'show abc', 'update', 'frobnicate', '']) {
      const { answer } = await ask(s, fake, { command: '/incident', text });
      expect(answer.text, text).toMatch(/^Usage: `\/incident new/);
    }
  });
});

describe('/status', () => {
  it('shows a service\'s status and its open incidents', async () => {
    const id = await createIncident({ service_id: 1002, title: 'Checkout down', status: 'major' });
    const { answer } = await ask(s, fake, { command: '/status', text: 'acme-web' });
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('Acme Web');
    expect(answer.text).toContain(':red_circle: Major outage');
    expect(answer.text).toContain(`*#${id}* :red_circle: Checkout down`);
  });

  it('shows a catalog service', async () => {
    const { answer } = await ask(s, fake, { command: '/status', text: 'acme-cloud' });
    expect(answer.text).toContain(':white_check_mark: Operational');
    expect(answer.text).toContain('No open incidents.');
  });

  it('suggests similar services for an unknown name, and hides other companies\'', async () => {
    const similar = await ask(s, fake, { command: '/status', text: 'cloud' });
    expect(similar.answer.text).toMatch(/There is no service `cloud`. Did you mean `acme-cloud` \(Acme Cloud\), `other-cloud`/);
    const theirs = await ask(s, fake, { command: '/status', text: 'globex-api' });
    expect(theirs.answer.text).toMatch(/The service does not exist/);
  });

  it('answers usage without a service', async () => {
    const { answer } = await ask(s, fake, { command: '/status', text: '  ' });
    expect(answer.text).toMatch(/^Usage: `\/status <service>`/);
  });
});

describe('acknowledgement', () => {
  it('acks with an empty 200 before the answer is sent', async () => {
    const { id, body } = commandBody(fake, { command: '/incident', text: 'list' });
    const res = await postEvent(s, body);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    await fake.waitFor(() => fake.calls.find((c) => c.path === `/respond/${id}`));
  });
});
