import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queueDueDigests } from '../../src/domain/read/digests/board-digest.js';
import { startFakeDiscord } from '../fakes/fake-discord.js';
import type { DiscordCall, FakeDiscord } from '../fakes/fake-discord.js';
import { FAST_DELIVERY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { discordConfig, discordEnv } from '../helpers/discord.js';

const INCIDENTS = '222';
const SERVICE = '223';
const BOARD = '224';

const CHANNELS = `
    channels:
      - { discord: "${INCIDENTS}", incidents: true }
      - { discord: "${SERVICE}", services: [acme-api] }
      - discord: "${BOARD}"
        boards: [{ board: vendors, schedule: "* * * * *", edit_in_place: true }]
`;

let fake: FakeDiscord;
let s: TestServer;
beforeEach(async () => {
  fake = await startFakeDiscord();
  s = await startTestServer({ config: discordConfig(CHANNELS), env: discordEnv(fake), delivery: FAST_DELIVERY });
});
afterEach(async () => {
  await s?.stop();
  await fake?.close();
});

const inChannel = (channelId: string) => (c: DiscordCall) => c.path.startsWith(`/channels/${channelId}/`);
const okCalls = (channelId: string) => fake.ok().filter(inChannel(channelId));
const step = (c: DiscordCall) => `${c.method} ${c.body.message_reference ? 'reply' : c.method === 'PATCH' ? 'edit' : 'message'}`;

async function settle(): Promise<void> {
  await fake.waitFor(async () => {
    const pending = await s.ctx.db.selectFrom('outbox').select('id').where('state', '=', 'pending').execute();
    return pending.length === 0;
  });
}

async function open(title: string) {
  const res = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title, description: 'First look' } });
  expect(res.status).toBe(201);
  return Number(res.body.data.id);
}

describe('incident announcements', () => {
  it('post one message, then edit it in place and reply once per update (the opening one too), in order', async () => {
    const id = await open('Checkout down');
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Found it', resolution_stage: 'identified' } });
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { title: 'Checkout down (EU)' } });
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'All good', resolution_stage: 'resolved' } });
    await settle();

    const calls = okCalls(INCIDENTS);
    expect(calls.map(step)).toEqual(['POST message', 'POST reply', 'PATCH edit', 'POST reply', 'PATCH edit', 'PATCH edit', 'POST reply']);
    const [main, ...messages] = fake.channel(INCIDENTS);
    expect(messages.map((m) => m.replyTo)).toEqual([main!.id, main!.id, main!.id]);
    for (const c of calls.filter((x) => x.method === 'PATCH')) expect(c.path).toBe(`/channels/${INCIDENTS}/messages/${main!.id}`);

    const created = calls[0]!.body;
    expect(created.embeds[0].title).toBe(`🟠 #${id} Checkout down`);
    expect(created.embeds[0].description).toBe('First look');
    expect(created.components[0].components.map((b: any) => [b.label, b.custom_id])).toEqual([
      ['Post update', `incident:update:${id}`],
      ['Resolve', `incident:resolve:${id}`],
    ]);
    expect(created.allowed_mentions).toEqual({ parse: [] });
    expect(created.nonce).toBeTruthy();
    expect(created.enforce_nonce).toBe(true);

    const finalState = main!.body;
    expect(finalState.embeds[0].title).toBe(`✅ #${id} Checkout down (EU)`);
    expect(finalState.embeds[0].fields.find((f: any) => f.name === 'Stage').value).toBe('Resolved');
    expect(finalState.components[0].components.map((b: any) => b.label)).toEqual(['Post update']);
    expect(messages[0]!.body.embeds[0]).toMatchObject({ title: `Investigating · #${id} Checkout down`, description: 'First look' });
    expect(messages[1]!.body.embeds[0]).toMatchObject({ title: `Identified · #${id} Checkout down`, description: 'Found it' });
    expect(messages[2]!.body.embeds[0]).toMatchObject({ title: `Resolved · #${id} Checkout down (EU)`, description: 'All good' });
    expect(calls[0]!.headers.authorization).toBe('Bot fake-discord-bot-token');
  });

  it('keep one message per incident when incidents interleave', async () => {
    const a = await open('A');
    const b = await open('B');
    await s.api('PATCH', `/api/v2/incidents/${a}`, { body: { description: 'a1', resolution_stage: 'identified' } });
    await s.api('PATCH', `/api/v2/incidents/${b}`, { body: { description: 'b1', resolution_stage: 'monitoring' } });
    await settle();
    const tops = fake.channel(INCIDENTS).filter((m) => !m.replyTo);
    expect(tops.map((m) => m.body.embeds[0].title)).toEqual([`🟠 #${a} A`, `🟠 #${b} B`]);
    const replies = fake.channel(INCIDENTS).filter((m) => m.replyTo);
    expect(replies.map((m) => [m.replyTo, m.body.embeds[0].description])).toEqual([
      [tops[0]!.id, 'First look'],
      [tops[1]!.id, 'First look'],
      [tops[0]!.id, 'a1'],
      [tops[1]!.id, 'b1'],
    ]);
  });

  it('post a new message when the old one was deleted in Discord, and edit that one afterwards', async () => {
    const id = await open('Gone');
    await settle();
    const [first] = fake.channel(INCIDENTS);
    fake.deleteMessage(first!.id);
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { title: 'Gone again' } });
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { status: 'major' } });
    await settle();
    const [second, ...rest] = fake.channel(INCIDENTS).filter((m) => !m.replyTo);
    expect(rest).toHaveLength(0);
    expect(second!.id).not.toBe(first!.id);
    expect(second!.edits).toBe(1);
    expect(second!.body.embeds[0].title).toBe(`🔴 #${id} Gone again`);
  });

  it('mark a deleted incident and drop its buttons', async () => {
    const id = await open('Mistake');
    expect((await s.api('DELETE', `/api/v2/incidents/${id}`)).status).toBe(204);
    await settle();
    const [main] = fake.channel(INCIDENTS);
    expect(main!.body.embeds[0].title).toBe(`🗑️ #${id} Mistake (deleted)`);
    expect(main!.body.components).toEqual([]);
  });

  it('an update written in Markdown reaches Discord as written: Discord reads Markdown', async () => {
    const id = await open('Queue backlog');
    const description = '**Rolled back** the _deploy_, see [the runbook](https://runbook.example/q)\n- drained queue_a & queue_b';
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description, resolution_stage: 'monitoring' } });
    await settle();
    const replies = fake.channel(INCIDENTS).filter((m) => m.replyTo !== null);
    expect(replies.at(-1)!.body.embeds[0].description).toBe(description);
  });
});

describe('other announcements', () => {
  it('a status change is one new message in the channels following the service', async () => {
    const id = await open('Status mover');
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'done', resolution_stage: 'resolved' } });
    await settle();
    const titles = fake.channel(SERVICE).map((m) => m.body.embeds[0].title);
    expect(titles).toEqual(['Acme API: 🟠 Minor issues', 'Acme API: 🟢 Operational']);
    expect(fake.ok().filter((c) => c.method === 'PATCH' && inChannel(SERVICE)(c))).toHaveLength(0);
  });

  it('a board digest with edit_in_place is posted once, then edited', async () => {
    expect(await queueDueDigests(s.ctx, new Date('2026-11-22T10:05:00Z'))).toBe(1);
    await settle();
    expect(await queueDueDigests(s.ctx, new Date('2026-11-22T10:06:00Z'))).toBe(1);
    await settle();
    const messages = fake.channel(BOARD);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.edits).toBe(1);
    expect(messages[0]!.body.embeds[0].title).toBe('Board Vendors');
    expect(messages[0]!.body.embeds[0].description).toContain('Acme Cloud');
  });
});
