import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import {
  ACME_TEAM,
  GLOBEX_TEAM,
  answersTo,
  ask,
  buttonClick,
  commandBody,
  interaction,
  postEvent,
  startSlackServer,
  submission,
  viewsOpenedWith,
} from '../helpers/slack.js';
import type { TestServer } from '../helpers/test-server.js';

/** What only Slack has: commands typed as text, acks within 3 seconds, Block Kit modals. The verbs themselves: test/chat. */
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

const rows = (channel: string) => s.ctx.db.selectFrom('channel_subscriptions').select('kind').where('channel_id', '=', channel).execute();

/** Sends a command and returns the view that views.open got. */
async function openFromCommand(text: string) {
  const cmd = commandBody(fake, { command: '/incident', text });
  const res = await postEvent(s, cmd.body);
  expect(res.status).toBe(200);
  expect(res.text).toBe('');
  const [call] = await fake.waitFor(() => {
    const found = viewsOpenedWith(fake, cmd.triggerId);
    return found.length ? found : null;
  });
  return call!.body.view;
}
const blockIds = (view: any) => view.blocks.map((b: any) => b.block_id ?? b.type);
const block = (view: any, id: string) => view.blocks.find((b: any) => b.block_id === id);

describe('command text', () => {
  it('answers usage for a missing or malformed incident id, an unknown verb, or no service', async () => {
    for (const text of ['resolve', 'show abc', 'update', 'frobnicate', '']) {
      const { answer } = await ask(s, fake, { command: '/incident', text });
      expect(answer.text, text).toMatch(/^Usage: `\/incident new/);
    }
    for (const [command, text] of [
      ['/service', '  '],
      ['/statusbot', 'status'],
    ] as const) {
      const { answer } = await ask(s, fake, { command, text });
      expect(answer.text).toMatch(/^Usage: `\/service <service>`/);
    }
    const { answer } = await ask(s, fake, { command: '/statusbot', text: 'link', team: GLOBEX_TEAM });
    expect(answer.text).toMatch(/^Usage: `\/statusbot link <api-key>`/);
  });

  it('names an unknown /statusbot verb and shows the help', async () => {
    const { answer } = await ask(s, fake, { command: '/statusbot', text: 'frobnicate' });
    expect(answer.text).toMatch(/^There is no `\/statusbot frobnicate`/);
    expect(answer.text).toContain('/statusbot subscribe incidents');
  });

  it('reads quoted settings and flags of a board subscription; an unknown key or target is refused and changes nothing', async () => {
    const subscribed = await ask(s, fake, {
      command: '/statusbot',
      text: 'subscribe board vendors schedule=“0 8 * * 1-5” timezone=Europe/Berlin only-on-change edit-in-place=no',
      channel: 'CQUOTES',
    });
    expect(subscribed.answer.text).toContain('at `0 8 * * 1-5` Europe/Berlin, only on change.');
    for (const [text, expected] of [
      ['subscribe board vendors colour=blue', /colour is not a known field/],
      ['subscribe everything', /target must be one of/],
    ] as const) {
      const { answer } = await ask(s, fake, { command: '/statusbot', text, channel: 'CQUOTES' });
      expect(answer.response_type).toBe('ephemeral');
      expect(answer.text, text).toMatch(expected);
    }
    expect(await rows('CQUOTES')).toEqual([{ kind: 'board' }]);
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

  it('acks before the modal is opened (a slow views.open does not hold the ack)', async () => {
    fake.slowDown('views.open', 1_500);
    try {
      const cmd = commandBody(fake, { command: '/incident', text: 'new' });
      const started = Date.now();
      const res = await postEvent(s, cmd.body);
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(viewsOpenedWith(fake, cmd.triggerId)).toEqual([]);
      await fake.waitFor(() => viewsOpenedWith(fake, cmd.triggerId).length > 0);
    } finally {
      fake.slowDown('views.open', 0);
    }
  });
});

describe('files', () => {
  it('/incident postmortem acks at once, then uploads the file in three steps and shares it in the channel asked from', async () => {
    const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Queue — backlog' } });
    const id = Number(res.body.data.id);
    fake.slowDown('files.getUploadURLExternal', 1_000);
    try {
      const cmd = commandBody(fake, { command: '/incident', text: `postmortem ${id}`, channel: 'CPOSTMORTEM' });
      const started = Date.now();
      const ack = await postEvent(s, cmd.body);
      expect(ack.status).toBe(200);
      expect(ack.text).toBe('');
      expect(Date.now() - started).toBeLessThan(800);
      const [answer] = await fake.waitFor(() => {
        const found = answersTo(fake, cmd.id);
        return found.length ? found : null;
      });
      expect(answer!.body).toMatchObject({ response_type: 'ephemeral', text: `Postmortem of incident *#${id}* posted as a file in this channel.` });
    } finally {
      fake.slowDown('files.getUploadURLExternal', 0);
    }

    const markdown = (await s.api('GET', `/api/v2/incidents/${id}/postmortem`)).text;
    const steps = fake.calls.filter((c) => ['files.getUploadURLExternal', 'upload', 'files.completeUploadExternal'].includes(c.method));
    expect(steps.map((c) => [c.method, c.status, c.ok])).toEqual([
      ['files.getUploadURLExternal', 200, true],
      ['upload', 200, true],
      ['files.completeUploadExternal', 200, true],
    ]);
    // The length announced is in bytes (an em dash is three).
    expect(steps[0]!.body).toMatchObject({ filename: `incident-${id}-postmortem.md`, length: String(Buffer.byteLength(markdown)) });
    expect(steps[2]!.body).toMatchObject({
      channel_id: 'CPOSTMORTEM',
      initial_comment: `Postmortem of incident *#${id}*: Queue — backlog`,
      files: [{ title: 'Postmortem: Queue — backlog' }],
    });
    expect(fake.files.map((f) => [f.channel, f.filename, f.title, f.content])).toEqual([
      ['CPOSTMORTEM', `incident-${id}-postmortem.md`, 'Postmortem: Queue — backlog', markdown],
    ]);
    expect(fake.messages.get('CPOSTMORTEM')?.map((m) => m.text)).toEqual([`Postmortem of incident *#${id}*: Queue — backlog`]);
  });

  it('answers usage for a malformed id', async () => {
    const { answer } = await ask(s, fake, { command: '/incident', text: 'postmortem abc' });
    expect(answer.text).toBe('Usage: `/incident postmortem [id]`');
  });
});

describe('modals', () => {
  it("/incident new: the company's services as options, Block Kit limits, optional description", async () => {
    const view = await openFromCommand('new');
    expect(view).toMatchObject({ type: 'modal', callback_id: 'incident_new', title: { text: 'New incident' } });
    expect(blockIds(view)).toEqual(['service', 'title', 'severity', 'stage', 'description']);
    expect(block(view, 'service').element.options.map((o: any) => [o.value, o.text.text])).toEqual([
      ['1001', 'Acme API'],
      ['1002', 'Acme Web'],
    ]);
    expect(block(view, 'severity').element.options.map((o: any) => o.value)).toEqual(['minor', 'major']);
    expect(block(view, 'stage').element.options.map((o: any) => o.value)).toEqual(['investigating', 'identified', 'monitoring', 'resolved']);
    expect(block(view, 'description').optional).toBe(true);
    expect(block(view, 'title').element.max_length).toBe(255);
  });

  it('the resolve modal asks about the incident by its title, escaped', async () => {
    const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'A <b> & c' } });
    const id = String(res.body.data.id);
    expect((await openFromCommand(`update ${id}`)).title.text).toBe(`Update #${id}`);
    const click = buttonClick(fake, 'incident_resolve', id);
    await interaction(s, click.payload);
    const [opened] = await fake.waitFor(() => {
      const found = viewsOpenedWith(fake, click.triggerId);
      return found.length ? found : null;
    });
    const view = opened!.body.view;
    expect(view).toMatchObject({ callback_id: 'incident_resolve', title: { text: `Resolve #${id}` } });
    expect(blockIds(view)).toEqual(['section', 'message']);
    expect(view.blocks[0].text.text).toBe(`Resolve *#${id}*: A &lt;b&gt; &amp; c?`);
  });

  it('a forged submission gets 401 and creates nothing', async () => {
    const view = await openFromCommand('new');
    const count = async () => (await s.ctx.db.selectFrom('incidents').select('id').execute()).length;
    const before = await count();
    const res = await interaction(
      s,
      submission(view, { service: { option: '1001' }, title: 'Forged', severity: { option: 'minor' }, stage: { option: 'investigating' } }, ACME_TEAM),
      { signature: 'v0=00' },
    );
    expect(res.status).toBe(401);
    expect(await count()).toBe(before);
  });
});
