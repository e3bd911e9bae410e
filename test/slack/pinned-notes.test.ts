import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentNotes } from '../../src/domain/chat/incident-notes.js';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { chatConfig, settleOutbox } from '../helpers/chat.js';
import { ACME_TEAM, postEvent, reactionEvent, startSlackServer } from '../helpers/slack.js';
import { FAST_DELIVERY } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

/** 📌 on Slack, where a reply in a thread is read with conversations.replies, not the channel's history. */
describe('pinned messages in an incident room on Slack', () => {
  let fake: FakeSlack;
  let s: TestServer;
  beforeAll(async () => {
    fake = await startFakeSlack();
    s = await startSlackServer(fake, { config: chatConfig('slack', ACME_TEAM, '', '', true), delivery: FAST_DELIVERY });
  });
  afterAll(async () => {
    await s?.stop();
    await fake?.close();
  });

  const pin = async (channel: string, ts: string, reaction = 'pushpin') => {
    const res = await postEvent(s, JSON.stringify(reactionEvent(ACME_TEAM, 'UALICE', channel, ts, reaction)), { contentType: 'application/json' });
    expect(res.status).toBe(200);
  };

  it('notes a reply in a thread, and ignores other reactions and channels that are no room', async () => {
    const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Threads', description: 'x', status: 'major' } });
    expect(res.status, res.text).toBe(201);
    const id = Number(res.body.data.id);
    await settleOutbox(s, 'slack');
    const room = fake.channels.find((c) => c.name === `inc-${id}-threads`)!;
    expect(room).toBeDefined();

    const parent = fake.say(room.id, 'UBOB', 'Looking at the queue');
    const reply = fake.say(room.id, 'UBOB', 'Queue drained at 14:02', parent);
    await pin(room.id, reply, 'thumbsup');
    await pin(fake.say('CGENERAL', 'UBOB', 'Not a room'), 'CGENERAL');
    await pin(room.id, reply);
    await waitUntil(async () => (await incidentNotes(s.ctx.db, id)).length > 0, { what: 'the reply noted' });
    const notes = await incidentNotes(s.ctx.db, id);
    expect(notes.map((n) => [n.text, n.authorId, n.messageId])).toEqual([['Queue drained at 14:02', 'UBOB', reply]]);
    expect(fake.ok('conversations.replies')).toHaveLength(1);
  });
});
