import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack, SlackCall } from '../fakes/fake-slack.js';
import type { TestServer } from '../helpers/test-server.js';
import { INCIDENTS_CHANNEL, buttonClick, interaction, startSlackServer, viewsOpenedWith } from '../helpers/slack.js';
import { FAST_DELIVERY } from '../helpers/test-server.js';

let fake: FakeSlack;
let s: TestServer;
beforeAll(async () => {
  fake = await startFakeSlack();
  s = await startSlackServer(fake, { delivery: FAST_DELIVERY });
});
afterAll(async () => {
  await s.stop();
  await fake.close();
});

const pending = async () => (await s.ctx.db.selectFrom('outbox').select('id').where('stream', 'like', 'slack:%').where('state', '!=', 'sent').execute()).length;
const settled = () => fake.waitFor(async () => (await pending()) === 0);
const inChannel = (channel: string) => (c: SlackCall) => c.ok && c.body.channel === channel && c.method.startsWith('chat.');

/** What only Slack asks of announcements: its pace per channel, and the modal its button opens. The delivery itself: test/chat. */
describe('incident announcements', () => {
  it('paces one channel at about one message per second', async () => {
    const created = await s.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Login errors', status: 'minor', description: 'Some users cannot log in' },
    });
    expect(created.status).toBe(201);
    const id = Number(created.body.data.id);
    await fake.waitFor(() => fake.calls.some((c) => c.ok && c.body.thread_ts));
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { status: 'major', description: 'Root cause found', resolution_stage: 'identified' } });
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Rolled back', resolution_stage: 'resolved' } });
    await settled();

    const times = fake.calls
      .filter(inChannel(INCIDENTS_CHANNEL))
      .filter((c) => !c.body.thread_ts)
      .map((c) => c.at);
    expect(times.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(950);
  });

  it("the message's button opens the update modal for that incident", async () => {
    const ts = fake.messages.get(INCIDENTS_CHANNEL)![0]!;
    const id = /#(\d+)/.exec(ts.text)![1]!;
    const click = buttonClick(fake, 'incident_post_update', id);
    await interaction(s, click.payload);
    const [opened] = await fake.waitFor(() => {
      const found = viewsOpenedWith(fake, click.triggerId);
      return found.length ? found : null;
    });
    expect(JSON.parse(opened!.body.view.private_metadata)).toMatchObject({ incidentId: Number(id) });
  });
});
