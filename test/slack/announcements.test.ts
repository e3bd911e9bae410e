import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack, SlackCall } from '../fakes/fake-slack.js';
import type { TestServer } from '../helpers/test-server.js';
import { INCIDENTS_CHANNEL, STATUS_CHANNEL, buttonClick, interaction, startSlackServer, viewsOpenedWith } from '../helpers/slack.js';
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
const buttons = (blocks: any[]) => blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements.map((e: any) => e.action_id));

describe('incident announcements', () => {
  it('one message per incident, edited in place, with every update as a thread reply, in order', async () => {
    const created = await s.api('POST', '/api/v2/incidents', {
      body: { service_id: 1001, title: 'Login errors', status: 'minor', description: 'Some users cannot log in' },
    });
    expect(created.status).toBe(201);
    const id = Number(created.body.data.id);
    await fake.waitFor(() => fake.calls.some((c) => c.ok && c.body.thread_ts));
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { status: 'major', description: 'Root cause found', resolution_stage: 'identified' } });
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Rolled back', resolution_stage: 'resolved' } });
    await settled();

    const calls = fake.calls.filter(inChannel(INCIDENTS_CHANNEL));
    const top = calls[0]!;
    expect(top.method).toBe('chat.postMessage');
    const ts = fake.messages.get(INCIDENTS_CHANNEL)![0]!.ts;
    expect(calls.map((c) => [c.method, c.body.ts ?? null, c.body.thread_ts ?? null])).toEqual([
      ['chat.postMessage', null, null],
      ['chat.postMessage', null, ts],
      ['chat.update', ts, null],
      ['chat.postMessage', null, ts],
      ['chat.update', ts, null],
      ['chat.postMessage', null, ts],
    ]);
    const replies = calls.filter((c) => c.body.thread_ts).map((c) => c.body.text);
    expect(replies).toEqual(['*Investigating* — Some users cannot log in', '*Identified* — Root cause found', '*Resolved* — Rolled back']);

    expect(top.body.text).toBe(`Minor incident #${id}: Login errors (Acme API)`);
    expect(top.body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: `#${id} Login errors` } });
    expect(buttons(top.body.blocks)).toEqual(['incident_post_update', 'incident_resolve']);
    const message = fake.messages.get(INCIDENTS_CHANNEL)!.find((m) => m.ts === ts)!;
    expect(message.edits).toBe(2);
    expect(message.text).toBe(`Resolved incident #${id}: Login errors (Acme API)`);
    expect(JSON.stringify(message.blocks)).toContain(':white_check_mark: Resolved');
    expect(buttons(message.blocks!)).toEqual(['incident_post_update']);

    const chatMessages = await s.ctx.db.selectFrom('chat_messages').selectAll().where('subject', '=', `incident:${id}`).execute();
    expect(chatMessages).toEqual([expect.objectContaining({ platform: 'slack', channel_id: INCIDENTS_CHANNEL, message_id: ts })]);
  });

  it('paces one channel at about one message per second', async () => {
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

  it('a status change of a followed service is one new message', async () => {
    const before = fake.calls.filter(inChannel(STATUS_CHANNEL)).length;
    const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Database failover', status: 'major' } });
    await settled();
    const calls = fake.calls.filter(inChannel(STATUS_CHANNEL)).slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.method).toBe('chat.postMessage');
    expect(calls[0]!.body.text).toBe('Acme API is now Major outage');
    expect(JSON.stringify(calls[0]!.body.blocks)).toContain('Database failover');
    expect(res.status).toBe(201);
  });

  it('a message deleted in Slack is posted anew on the next change', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: 'Search slow' } });
    const id = Number(created.body.data.id);
    await settled();
    const first = (await s.ctx.db.selectFrom('chat_messages').select('message_id').where('subject', '=', `incident:${id}`).executeTakeFirstOrThrow())
      .message_id;
    const list = fake.messages.get(INCIDENTS_CHANNEL)!;
    list.splice(
      list.findIndex((m) => m.ts === first),
      1,
    );

    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Reindexing', resolution_stage: 'monitoring' } });
    await settled();
    const second = (await s.ctx.db.selectFrom('chat_messages').select('message_id').where('subject', '=', `incident:${id}`).executeTakeFirstOrThrow())
      .message_id;
    expect(second).not.toBe(first);
    const replies = fake.messages.get(INCIDENTS_CHANNEL)!.filter((m) => m.threadTs === second);
    expect(replies.map((m) => m.text)).toEqual(['*Monitoring* — Reindexing']);
  });

  it('an update written in Markdown reaches Slack in mrkdwn: bold, italics, code, links and lists, the rest escaped', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: 'Queue backlog' } });
    const id = Number(created.body.data.id);
    await settled();
    const description =
      '**Rolled back** the _deploy_ of `api<2>`, see [the runbook](https://runbook.example/q?a=1&b=2)\n- drained queue_a & queue_b\n- 2 * 3 < 7';
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description, resolution_stage: 'monitoring' } });
    await settled();
    const ts = (await s.ctx.db.selectFrom('chat_messages').select('message_id').where('subject', '=', `incident:${id}`).executeTakeFirstOrThrow()).message_id;
    const reply = fake.messages
      .get(INCIDENTS_CHANNEL)!
      .filter((m) => m.threadTs === ts)
      .at(-1)!;
    expect(reply.text).toBe(
      '*Monitoring* — *Rolled back* the _deploy_ of `api&lt;2&gt;`, see <https://runbook.example/q?a=1&b=2|the runbook>\n• drained queue_a &amp; queue_b\n• 2 * 3 &lt; 7',
    );
    expect(reply.text).not.toContain('**');
  });
});
