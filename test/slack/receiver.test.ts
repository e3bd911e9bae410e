import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import type { TestServer } from '../helpers/test-server.js';
import { GLOBEX_KEY, GLOBEX_TEAM, ask, commandBody, postEvent, sign, startSlackServer } from '../helpers/slack.js';

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

const links = () => s.ctx.db.selectFrom('chat_links').selectAll().where('workspace_id', '=', GLOBEX_TEAM).execute();

describe('POST /slack/events: request verification', () => {
  const link = () => commandBody(fake, { command: '/statusbot', text: `link ${GLOBEX_KEY}`, team: GLOBEX_TEAM });
  const now = () => Math.floor(Date.now() / 1000);

  it('refuses a forged signature with 401 and changes nothing', async () => {
    const { body } = link();
    const before = fake.calls.length;
    const res = await postEvent(s, body, { signature: sign(now(), body, 'not-the-signing-secret') });
    expect(res.status).toBe(401);
    expect(await links()).toEqual([]);
    expect(fake.calls.length).toBe(before);
  });

  it('refuses a signature over a different body with 401', async () => {
    const { body } = link();
    const res = await postEvent(s, body, { signature: sign(now(), body.replace('link', 'help')) });
    expect(res.status).toBe(401);
    expect(await links()).toEqual([]);
  });

  it('refuses an unsigned request with 401', async () => {
    const res = await postEvent(s, link().body, { signature: null });
    expect(res.status).toBe(401);
    expect(await links()).toEqual([]);
  });

  it('refuses a replayed request (validly signed, timestamp older than 5 minutes) with 401', async () => {
    const { body } = link();
    const old = now() - 5 * 60 - 30;
    const res = await postEvent(s, body, { timestamp: old, signature: sign(old, body) });
    expect(res.status).toBe(401);
    expect(await links()).toEqual([]);
    expect(fake.calls.filter((c) => c.method === 'response_url')).toEqual([]);
  });

  it('refuses a validly signed request dated more than 5 minutes ahead with 401', async () => {
    const { body } = link();
    const ahead = now() + 5 * 60 + 30;
    const res = await postEvent(s, body, { timestamp: ahead, signature: sign(ahead, body) });
    expect(res.status).toBe(401);
    expect(await links()).toEqual([]);
  });

  it('accepts a request signed within the window', async () => {
    const { answer } = await ask(s, fake, { command: '/statusbot', text: 'help', team: GLOBEX_TEAM });
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('/incident new');
  });
});

describe("POST /slack/events: Slack's own checks", () => {
  it('answers url_verification with the challenge', async () => {
    const body = JSON.stringify({ token: 'x', challenge: 'c-123', type: 'url_verification' });
    const res = await postEvent(s, body, { contentType: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ challenge: 'c-123' });
  });

  it('answers ssl_check without a signature, and runs nothing smuggled with it', async () => {
    const before = fake.calls.length;
    const res = await postEvent(s, `ssl_check=1&token=x&command=%2Fstatusbot&text=link+${GLOBEX_KEY}&team_id=${GLOBEX_TEAM}`, {
      signature: null,
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    await new Promise((r) => setTimeout(r, 50));
    expect(fake.calls.length).toBe(before);
    expect(await links()).toEqual([]);
  });

  it('answers another method with 405', async () => {
    const res = await fetch(`${s.url}/slack/events`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('answers a signed but unparsable body with 400', async () => {
    const res = await postEvent(s, '{not json', { contentType: 'application/json' });
    expect(res.status).toBe(400);
  });
});
