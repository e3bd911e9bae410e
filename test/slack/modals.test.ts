import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import type { TestServer } from '../helpers/test-server.js';
import {
  GLOBEX_KEY,
  answersTo,
  ask,
  buttonClick,
  commandBody,
  interaction,
  postEvent,
  submission,
  viewsOpenedWith,
} from './slack-harness.js';
import { startSlackServer } from './slack-harness.js';

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
  return { view: call!.body.view, responseId: cmd.id };
}

const blockIds = (view: any) => view.blocks.map((b: any) => b.block_id ?? b.type);
const block = (view: any, id: string) => view.blocks.find((b: any) => b.block_id === id);
const incidentCount = async () =>
  Number((await s.ctx.db.selectFrom('incidents').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

async function createIncident(body: Record<string, unknown>, key?: string) {
  const res = await s.api('POST', '/api/v2/incidents', { body, ...(key ? { key } : {}) });
  expect(res.status, res.text).toBe(201);
  return Number(res.body.data.id);
}

describe('/incident new', () => {
  it('acks, then opens the modal with the company\'s services, title, severity, stage and description', async () => {
    const { view } = await openFromCommand('new');
    expect(view).toMatchObject({ type: 'modal', callback_id: 'incident_new', title: { text: 'New incident' } });
    expect(blockIds(view)).toEqual(['service', 'title', 'severity', 'stage', 'description']);
    expect(block(view, 'service').element.options.map((o: any) => [o.value, o.text.text])).toEqual([
      ['1001', 'Acme API'],
      ['1002', 'Acme Web'],
    ]);
    expect(block(view, 'severity').element.options.map((o: any) => o.value)).toEqual(['minor', 'major']);
    expect(block(view, 'severity').element.initial_option.value).toBe('minor');
    expect(block(view, 'stage').element.options.map((o: any) => o.value)).toEqual(['investigating', 'identified', 'monitoring', 'resolved']);
    expect(block(view, 'description').optional).toBe(true);
    expect(block(view, 'title').element.max_length).toBe(255);
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

  it('a submission creates the incident, closes the modal, and confirms ephemerally', async () => {
    const { view, responseId } = await openFromCommand('new');
    const res = await interaction(
      s,
      submission(view, {
        service: { option: '1002' },
        title: 'Checkout fails',
        severity: { option: 'major' },
        stage: { option: 'identified' },
        description: 'Payment provider times out',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const row = await s.ctx.db.selectFrom('incidents').selectAll().where('title', '=', 'Checkout fails').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ service_id: 1002, status: 'major', resolved: 0, description: 'Payment provider times out' });
    const updates = await s.ctx.db.selectFrom('incident_updates').select(['stage', 'description']).where('incident_id', '=', row.id).execute();
    expect(updates).toEqual([{ stage: 'identified', description: 'Payment provider times out' }]);
    const [confirmation] = await fake.waitFor(() => {
      const found = answersTo(fake, responseId);
      return found.length ? found : null;
    });
    expect(confirmation!.body).toMatchObject({ response_type: 'ephemeral', text: `Opened incident *#${row.id}* on Acme Web: Checkout fails` });
  });

  it('shows field errors inline (response_action: errors) and creates nothing', async () => {
    const { view } = await openFromCommand('new');
    const before = await incidentCount();
    const blank = await interaction(
      s,
      submission(view, { service: { option: '1001' }, title: '   ', severity: { option: 'minor' }, stage: { option: 'investigating' }, description: null }),
    );
    expect(blank.status).toBe(200);
    expect(blank.json).toEqual({ response_action: 'errors', errors: { title: 'title must not be blank' } });

    const foreign = await interaction(
      s,
      submission(view, { service: { option: '2001' }, title: 'Sneaky', severity: { option: 'bogus' }, stage: { option: 'investigating' }, description: null }),
    );
    expect(foreign.json.response_action).toBe('errors');
    expect(Object.keys(foreign.json.errors).sort()).toEqual(['severity']);
    expect(foreign.json.errors.severity).toMatch(/status must be one of minor, major/);

    const other = await interaction(
      s,
      submission(view, { service: { option: '2001' }, title: 'Sneaky', severity: { option: 'minor' }, stage: { option: 'investigating' }, description: null }),
    );
    expect(other.json).toEqual({
      response_action: 'errors',
      errors: { service: 'service_id must be the id of a custom service of your company' },
    });
    expect(await incidentCount()).toBe(before);
  });

  it('a submission from an unlinked workspace is refused inline', async () => {
    const { view } = await openFromCommand('new');
    const before = await incidentCount();
    const res = await interaction(
      s,
      submission(view, { service: { option: '1001' }, title: 'x', severity: { option: 'minor' }, stage: { option: 'investigating' } }, 'TUNLINKED'),
    );
    expect(res.json.response_action).toBe('errors');
    expect(res.json.errors.title).toMatch(/not linked/);
    expect(await incidentCount()).toBe(before);
  });

  it('a forged submission gets 401 and creates nothing', async () => {
    const { view } = await openFromCommand('new');
    const before = await incidentCount();
    const res = await interaction(
      s,
      submission(view, { service: { option: '1001' }, title: 'Forged', severity: { option: 'minor' }, stage: { option: 'investigating' } }),
      { signature: 'v0=00' },
    );
    expect(res.status).toBe(401);
    expect(await incidentCount()).toBe(before);
  });
});

describe('/incident update', () => {
  it('opens the modal prefilled with the current title, severity and stage; a submission changes them and posts the update', async () => {
    const id = await createIncident({ service_id: 1001, title: 'Elevated errors', status: 'minor', resolution_stage: 'identified' });
    const { view, responseId } = await openFromCommand(`update ${id}`);
    expect(view.callback_id).toBe('incident_update');
    expect(blockIds(view)).toEqual(['title', 'severity', 'stage', 'description']);
    expect(block(view, 'title').element.initial_value).toBe('Elevated errors');
    expect(block(view, 'severity').element.initial_option.value).toBe('minor');
    expect(block(view, 'stage').element.initial_option.value).toBe('identified');

    const res = await interaction(
      s,
      submission(view, { title: 'Elevated errors on login', severity: { option: 'major' }, stage: { option: 'monitoring' }, description: 'Fix deployed' }),
    );
    expect(res.text).toBe('');
    const after = await s.api('GET', `/api/v2/incidents/${id}`);
    expect(after.body.data.attributes).toMatchObject({ title: 'Elevated errors on login', status: 'major', resolved: false });
    expect(after.body.data.attributes.updates.map((u: any) => [u.status, u.description])).toEqual([
      ['identified', ''],
      ['monitoring', 'Fix deployed'],
    ]);
    await fake.waitFor(() => answersTo(fake, responseId).length > 0);
    expect(answersTo(fake, responseId)[0]!.body.text).toBe(`Updated incident *#${id}*: Elevated errors on login`);
  });

  it('a submission that changes only the title posts no update', async () => {
    const id = await createIncident({ service_id: 1001, title: 'Typo in titel' });
    const { view } = await openFromCommand(`update ${id}`);
    await interaction(s, submission(view, { title: 'Typo in title', severity: { option: 'minor' }, stage: { option: 'investigating' }, description: null }));
    const after = await s.api('GET', `/api/v2/incidents/${id}`);
    expect(after.body.data.attributes.title).toBe('Typo in title');
    expect(after.body.data.attributes.updates).toHaveLength(1);
  });

  it('answers ephemerally, without a modal, for another company\'s incident', async () => {
    const theirs = await createIncident({ service_id: 2001, title: 'Globex only' }, GLOBEX_KEY);
    const { answer } = await ask(s, fake, { command: '/incident', text: `update ${theirs}` });
    expect(answer).toMatchObject({ response_type: 'ephemeral' });
    expect(answer.text).toMatch(/The incident does not exist/);
  });
});

describe('the buttons of an incident\'s message', () => {
  it('"Post update" acks, then opens the update modal with the trigger_id', async () => {
    const id = await createIncident({ service_id: 1002, title: 'Images missing' });
    const click = buttonClick(fake, 'incident_post_update', String(id));
    const res = await interaction(s, click.payload);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const [opened] = await fake.waitFor(() => {
      const found = viewsOpenedWith(fake, click.triggerId);
      return found.length ? found : null;
    });
    expect(opened!.body.view).toMatchObject({ callback_id: 'incident_update', title: { text: `Update #${id}` } });
    expect(block(opened!.body.view, 'title').element.initial_value).toBe('Images missing');
  });

  it('"Resolve" opens the resolve modal; its submission resolves with the message', async () => {
    const id = await createIncident({ service_id: 1002, title: 'CDN purge stuck' });
    const click = buttonClick(fake, 'incident_resolve', String(id));
    await interaction(s, click.payload);
    const [opened] = await fake.waitFor(() => {
      const found = viewsOpenedWith(fake, click.triggerId);
      return found.length ? found : null;
    });
    const view = opened!.body.view;
    expect(view.callback_id).toBe('incident_resolve');
    expect(blockIds(view)).toEqual(['section', 'message']);

    const res = await interaction(s, submission(view, { message: 'Purged by hand' }));
    expect(res.text).toBe('');
    const after = await s.api('GET', `/api/v2/incidents/${id}`);
    expect(after.body.data.attributes.resolved).toBe(true);
    expect(after.body.data.attributes.updates.at(-1)).toMatchObject({ status: 'resolved', description: 'Purged by hand' });
    await fake.waitFor(() => answersTo(fake, click.id).length > 0);
    expect(answersTo(fake, click.id)[0]!.body).toMatchObject({
      response_type: 'ephemeral',
      replace_original: false,
      text: `Resolved incident *#${id}*: CDN purge stuck`,
    });
  });

  it('a click from an unlinked workspace gets the how-to-link line and no modal', async () => {
    const click = buttonClick(fake, 'incident_resolve', '1', 'TUNLINKED');
    await interaction(s, click.payload);
    await fake.waitFor(() => answersTo(fake, click.id).length > 0);
    expect(answersTo(fake, click.id)[0]!.body.text).toMatch(/not linked/);
    expect(viewsOpenedWith(fake, click.triggerId)).toEqual([]);
  });

  it('a click on another company\'s incident gets not found and no modal', async () => {
    const theirs = await createIncident({ service_id: 2001, title: 'Globex again' }, GLOBEX_KEY);
    const click = buttonClick(fake, 'incident_post_update', String(theirs));
    await interaction(s, click.payload);
    await fake.waitFor(() => answersTo(fake, click.id).length > 0);
    expect(answersTo(fake, click.id)[0]!.body.text).toMatch(/The incident does not exist/);
    expect(viewsOpenedWith(fake, click.triggerId)).toEqual([]);
  });
});
