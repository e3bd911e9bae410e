import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_APP_TOKEN, FAKE_BOT_TOKEN, startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { ACME_TEAM, SLACK_CONFIG, answersTo, commandBody, submission } from '../helpers/slack.js';

let fake: FakeSlack;
let s: TestServer;
beforeAll(async () => {
  fake = await startFakeSlack();
  s = await startTestServer({
    config: SLACK_CONFIG,
    env: { SLACK_BOT_TOKEN: FAKE_BOT_TOKEN, SLACK_APP_TOKEN: FAKE_APP_TOKEN, SLACK_API_URL: fake.apiUrl },
  });
  await fake.socket.connected();
});
afterAll(async () => {
  await s.stop();
  await fake.close();
});

const commandPayload = (text: string) => {
  const { id, body } = commandBody(fake, { command: '/incident', text });
  return { id, payload: Object.fromEntries(new URLSearchParams(body)) };
};

describe('Socket Mode (SLACK_APP_TOKEN set)', () => {
  it('connects with the app token and serves no HTTP endpoint', async () => {
    expect(fake.ok('apps.connections.open')).toHaveLength(1);
    const res = await fetch(`${s.url}/slack/events`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(404);
  });

  it('acks a slash command over the socket, then answers through the response_url', async () => {
    const { id, payload } = commandPayload('list');
    const ack = await fake.socket.send('slash_commands', payload);
    expect(ack.payload ?? {}).toEqual({});
    await fake.waitFor(() => answersTo(fake, id).length > 0);
    expect(answersTo(fake, id)[0]!.body).toEqual({ response_type: 'ephemeral', text: 'No open incidents. :tada:' });
  });

  it('opens the modal, and answers a bad submission with inline errors in the ack', async () => {
    const { id, payload } = commandPayload('new');
    await fake.socket.send('slash_commands', payload);
    const [opened] = await fake.waitFor(() => {
      const found = fake.calls.filter((c) => c.method === 'views.open' && c.body.trigger_id === payload.trigger_id);
      return found.length ? found : null;
    });
    const view = opened!.body.view;
    const bad = await fake.socket.send(
      'interactive',
      submission(view, { service: { option: '1001' }, title: ' ', severity: { option: 'minor' }, stage: { option: 'investigating' } }, ACME_TEAM),
    );
    expect(bad.payload).toEqual({ response_action: 'errors', errors: { title: 'title must not be blank' } });

    const good = await fake.socket.send(
      'interactive',
      submission(view, { service: { option: '1001' }, title: 'Over the socket', severity: { option: 'minor' }, stage: { option: 'investigating' } }),
    );
    expect(good.payload ?? {}).toEqual({});
    const row = await s.ctx.db.selectFrom('incidents').select(['service_id', 'title']).where('title', '=', 'Over the socket').executeTakeFirst();
    expect(row).toEqual({ service_id: 1001, title: 'Over the socket' });
    await fake.waitFor(() => answersTo(fake, id).length > 0);
    expect(answersTo(fake, id)[0]!.body.text).toMatch(/^Opened incident \*#\d+\* on Acme API: Over the socket$/);
  });
});
