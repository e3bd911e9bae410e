import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, FAKE_APPLICATION_ID, FAKE_DISCORD_TOKEN } from '../fakes/fake-discord.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeGateway } from '../fakes/fake-discord-gateway.js';
import type { FakeGateway } from '../fakes/fake-discord-gateway.js';
import { CHANNEL, command, modalSubmit } from '../fakes/discord-interactions.js';
import { startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { discordConfig, discordEnv } from '../helpers/discord.js';

let fake: FakeDiscord;
let gateway: FakeGateway;
let s: TestServer;
beforeAll(async () => {
  fake = await startFakeDiscord();
  gateway = await startFakeGateway(FAKE_APPLICATION_ID);
  fake.gatewayUrl = gateway.url;
  // Gateway only: no public key, so no HTTP interactions endpoint.
  s = await startTestServer({ config: discordConfig(), env: discordEnv(fake, { DISCORD_GATEWAY: 'on', DISCORD_PUBLIC_KEY: '' }) });
  await gateway.ready;
});
afterAll(async () => {
  await s?.stop();
  await gateway?.close();
  await fake?.close();
});

const callbackOf = (interaction: { id: string; token: string }) =>
  fake.waitFor(() => fake.calls.find((c) => c.method === 'POST' && c.path === `/interactions/${interaction.id}/${interaction.token}/callback`));

describe('gateway mode', () => {
  it('identifies with the bot token after fetching the gateway URL over REST', () => {
    expect(fake.calls.some((c) => c.method === 'GET' && c.path === '/gateway/bot')).toBe(true);
    expect(gateway.identifies[0].token).toBe(FAKE_DISCORD_TOKEN);
  });

  it('answers an interaction that arrives over the gateway through the callback endpoint', async () => {
    const list = command('incident list');
    gateway.dispatch('INTERACTION_CREATE', list);
    const call = await callbackOf(list);
    expect(call.status).toBe(204);
    expect(call.body).toMatchObject({ type: 4, data: { embeds: [{ title: 'Open incidents' }] } });
    // The callback is authorized by the interaction token in its path, not by the bot token.
    expect(call.headers.authorization).toBeUndefined();
  });

  it('runs modal submissions through the same handler', async () => {
    const submit = modalSubmit('incident:new:1001', { title: 'Via gateway', severity: ['major'], stage: ['investigating'], description: '' });
    gateway.dispatch('INTERACTION_CREATE', submit);
    const call = await callbackOf(submit);
    expect(call.body.data.content).toMatch(/^Opened incident \*\*#\d+\*\* on Acme API: Via gateway$/);
    const row = await s.ctx.db.selectFrom('incidents').select(['title', 'status']).where('title', '=', 'Via gateway').executeTakeFirst();
    expect(row).toEqual({ title: 'Via gateway', status: 'major' });
  });

  it('posts a file as a follow-up once the deferred response went through the callback', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Gateway postmortem' } });
    const id = Number(created.body.data.id);
    const postmortem = command('incident postmortem', { id });
    fake.sent(postmortem);
    gateway.dispatch('INTERACTION_CREATE', postmortem);
    const call = await callbackOf(postmortem);
    expect(call.body).toEqual({ type: 5 });
    const followUp = await fake.waitFor(() => fake.ok(/^POST \/webhooks\//).find((c) => c.path === `/webhooks/${FAKE_APPLICATION_ID}/${postmortem.token}`));
    expect(followUp.at).toBeGreaterThanOrEqual(call.at);
    const [message] = [...fake.messages.values()].filter((m) => m.interactionToken === postmortem.token);
    expect(message!.channelId).toBe(CHANNEL);
    expect(message!.files!.map((f) => [f.filename, f.content])).toEqual([
      [`incident-${id}-postmortem.md`, (await s.api('GET', `/api/v2/incidents/${id}/postmortem`)).text],
    ]);
  });

  it('mounts no HTTP interactions endpoint without a public key', async () => {
    const res = await fetch(`${s.url}/discord/interactions`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(404);
  });
});
