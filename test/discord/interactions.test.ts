import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { companyForWorkspace } from '../../src/domain/chat/chat-links.js';
import { listChannelSubscriptions } from '../../src/domain/chat/subscriptions.js';
import { startFakeDiscord } from '../fakes/fake-discord.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { CHANNEL, GUILD, PERMISSIONS, autocomplete, button, command, modalSubmit, ping } from '../fakes/discord-interactions.js';
import { GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { discordConfig, discordEnv } from './discord-env.js';

const EPHEMERAL = 64;
const UNLINKED = '333';

let fake: FakeDiscord;
let s: TestServer;
beforeAll(async () => {
  fake = await startFakeDiscord();
  s = await startTestServer({ config: discordConfig(), env: discordEnv(fake) });
});
afterAll(async () => {
  await s?.stop();
  await fake?.close();
});

const send = (interaction: unknown) => fake.interact(s.url, interaction, { now: s.clock.now() });
const acme = async () => (await companyForWorkspace(s.ctx, 'discord', GUILD))!;
const channel = (channelId = CHANNEL, guild = GUILD) => ({ platform: 'discord' as const, workspaceId: guild, channelId });
const count = async (table: 'incidents' | 'incident_updates' | 'chat_links' | 'channel_subscriptions') =>
  Number((await s.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

async function newIncident(title: string, fields: Record<string, string | string[]> = {}) {
  const res = await send(modalSubmit('incident:new:1001', { title, severity: ['minor'], stage: ['investigating'], description: '', ...fields }));
  expect(res.body.data.content, JSON.stringify(res.body)).toMatch(/^Opened incident #\d+/);
  return Number(/#(\d+)/.exec(res.body.data.content)![1]);
}

describe('transport', () => {
  it('answers a signed PING with PONG', async () => {
    const res = await send(ping());
    expect(res).toEqual({ status: 200, body: { type: 1 } });
  });

  it('refuses unsigned, forged, tampered and stale requests with 401, and changes nothing', async () => {
    const link = command('statusbot link', { key: GLOBEX_KEY }, { guild: UNLINKED });
    const body = JSON.stringify(link);
    const now = s.clock.now();
    const ts = String(Math.floor(now.getTime() / 1000));
    const other = await startFakeDiscord();
    try {
      const attempts = [
        { signature: null },
        { signature: 'ab'.repeat(64) },
        { signature: other.sign(ts, body), timestamp: ts },
        { signature: fake.sign(ts, body.replace(UNLINKED, '334')), timestamp: ts },
        { timestamp: String(Math.floor(now.getTime() / 1000) - 3600) },
      ];
      for (const options of attempts) {
        const res = await fake.interact(s.url, link, { now, ...options });
        expect(res.status).toBe(401);
      }
    } finally {
      await other.close();
    }
    expect(await companyForWorkspace(s.ctx, 'discord', UNLINKED)).toBeNull();
  });

  it('answers 400 to a signed body that is not an interaction', async () => {
    const now = s.clock.now();
    const ts = String(Math.floor(now.getTime() / 1000));
    const res = await fetch(`${s.url}/discord/interactions`, {
      method: 'POST',
      headers: { 'x-signature-ed25519': fake.sign(ts, 'null'), 'x-signature-timestamp': ts, 'content-type': 'application/json' },
      body: 'null',
    });
    expect(res.status).toBe(400);
  });
});

describe('/statusbot link and unlinked guilds', () => {
  it('answers every command in an unlinked guild with how to link, except help', async () => {
    for (const path of ['incident list', 'statusbot subscriptions', 'statusbot subscribe incidents']) {
      const res = await send(command(path, {}, { guild: UNLINKED }));
      expect(res.body.data.flags).toBe(EPHEMERAL);
      expect(res.body.data.content).toContain('/statusbot link');
    }
    const help = await send(command('statusbot help', {}, { guild: UNLINKED }));
    expect(help.body.data.content).toContain('/incident new');
    const hint = await send(autocomplete('status', { service: 'acme' }, 'service', { guild: UNLINKED }));
    expect(hint.body).toEqual({ type: 8, data: { choices: [] } });
  });

  it('links with a valid key, ephemerally, never echoing or logging the key', async () => {
    const logs = [vi.spyOn(console, 'log'), vi.spyOn(console, 'error'), vi.spyOn(console, 'info')];
    try {
      const bad = await send(command('statusbot link', { key: 'wrong-key-123' }, { guild: UNLINKED }));
      expect(bad.body.data).toMatchObject({ flags: EPHEMERAL, content: expect.stringContaining('not valid') });
      expect(await companyForWorkspace(s.ctx, 'discord', UNLINKED)).toBeNull();

      const refused = await send(command('statusbot link', { key: GLOBEX_KEY }, { guild: UNLINKED, permissions: PERMISSIONS.manageChannels }));
      expect(refused.body.data.content).toContain('Manage Server');
      expect(await companyForWorkspace(s.ctx, 'discord', UNLINKED)).toBeNull();

      const ok = await send(command('statusbot link', { key: ` ${GLOBEX_KEY} ` }, { guild: UNLINKED, permissions: PERMISSIONS.manageGuild }));
      expect(ok.body.data.flags).toBe(EPHEMERAL);
      expect(ok.body.data.content).toContain('Globex');
      expect(JSON.stringify(ok.body)).not.toContain(GLOBEX_KEY);
      expect((await companyForWorkspace(s.ctx, 'discord', UNLINKED))?.name).toBe('Globex');
      for (const spy of logs) expect(JSON.stringify(spy.mock.calls)).not.toContain(GLOBEX_KEY);
    } finally {
      for (const spy of logs) spy.mockRestore();
    }
  });
});

describe('/statusbot subscribe, unsubscribe, subscriptions', () => {
  const C = '240';
  it('follows incidents, a service and a board through the domain, and lists them', async () => {
    const where = { channel: C };
    for (const [path, options] of [
      ['statusbot subscribe incidents', {}],
      ['statusbot subscribe service', { service: 'acme-cloud' }],
      ['statusbot subscribe board', { board: 'vendors', schedule: '30 8 * * *', timezone: 'Europe/Berlin', only_on_change: true }],
    ] as const) {
      const res = await send(command(path, options, where));
      expect(res.body.data.flags).toBe(EPHEMERAL);
      expect(res.body.data.content).toMatch(/^This channel now follows/);
    }
    const subs = await listChannelSubscriptions(s.ctx, await acme(), channel(C));
    expect(subs.map((x) => x.kind)).toEqual(['incidents', 'service', 'board']);
    expect(subs[2]!.digest).toEqual({ schedule: '30 8 * * *', timezone: 'Europe/Berlin', onlyOnChange: true, editInPlace: false });

    const listed = await send(command('statusbot subscriptions', {}, where));
    expect(listed.body.data.content).toContain("the company's incidents");
    expect(listed.body.data.content).toContain('Acme Cloud');
    expect(listed.body.data.content).toContain('Vendors');
  });

  it('reports field errors and unknown targets ephemerally, and changes nothing', async () => {
    const before = await count('channel_subscriptions');
    const tz = await send(command('statusbot subscribe board', { board: 'vendors', timezone: 'Mars/Olympus' }, { channel: '241' }));
    expect(tz.body.data).toMatchObject({ flags: EPHEMERAL, content: expect.stringContaining('timezone must be an IANA time zone') });
    const unknown = await send(command('statusbot subscribe service', { service: 'globex-api' }, { channel: '241' }));
    expect(unknown.body.data.content).toContain('The service does not exist');
    const refused = await send(command('statusbot subscribe incidents', {}, { channel: '241', permissions: PERMISSIONS.none }));
    expect(refused.body.data.content).toContain('Manage Channels');
    expect(await count('channel_subscriptions')).toBe(before);
  });

  it('unsubscribes, and says so when the channel did not follow it', async () => {
    const res = await send(command('statusbot unsubscribe service', { service: 'acme-cloud' }, { channel: C }));
    expect(res.body.data.content).toContain('no longer follows');
    const again = await send(command('statusbot unsubscribe service', { service: 'acme-cloud' }, { channel: C }));
    expect(again.body.data.content).toContain('does not follow');
    expect((await listChannelSubscriptions(s.ctx, await acme(), channel(C))).map((x) => x.kind)).toEqual(['incidents', 'board']);
  });
});

describe('/incident', () => {
  it('new opens a modal for the chosen service; its submission creates the incident', async () => {
    const res = await send(command('incident new', { service: 'acme-api' }));
    expect(res.body.type).toBe(9);
    expect(res.body.data.custom_id).toBe('incident:new:1001');
    expect(res.body.data.title).toBe('New incident: Acme API');
    const ids = res.body.data.components.map((c: any) => c.component.custom_id);
    expect(ids).toEqual(['title', 'severity', 'stage', 'description']);

    const id = await newIncident('Checkout failing', { severity: ['major'], stage: ['identified'], description: 'Payments time out' });
    const got = await s.api('GET', `/api/v2/incidents/${id}`);
    expect(got.body.data.attributes).toMatchObject({
      title: 'Checkout failing',
      status: 'major',
      service_id: 1001,
      description: 'Payments time out',
      updates: [{ status: 'identified', description: 'Payments time out' }],
    });
  });

  it('refuses an unknown service before the modal, and field errors on submission, ephemerally', async () => {
    const unknown = await send(command('incident new', { service: 'globex-api' }));
    expect(unknown.body.data).toMatchObject({ flags: EPHEMERAL, content: expect.stringContaining('acme-api, acme-web') });
    const before = await count('incidents');
    const blank = await send(modalSubmit('incident:new:1001', { title: '   ', severity: ['minor'], stage: ['investigating'], description: '' }));
    expect(blank.body.data).toMatchObject({ flags: EPHEMERAL, content: expect.stringContaining('title must not be blank') });
    const foreign = await send(modalSubmit('incident:new:2001', { title: 'Not ours', severity: ['minor'], stage: ['investigating'] }));
    expect(foreign.body.data.content).toContain('service_id must be the id of a custom service of your company');
    expect(await count('incidents')).toBe(before);
  });

  it('update opens a prefilled modal; a message or a new stage posts an update, else only title and severity change', async () => {
    const id = await newIncident('Slow pages');
    const res = await send(command('incident update', { id }));
    expect(res.body.type).toBe(9);
    expect(res.body.data.custom_id).toBe(`incident:update:${id}`);
    const [title, severity, stage] = res.body.data.components.map((c: any) => c.component);
    expect(title.value).toBe('Slow pages');
    expect(severity.options.find((o: any) => o.default).value).toBe('minor');
    expect(stage.options.find((o: any) => o.default).value).toBe('investigating');

    await send(modalSubmit(`incident:update:${id}`, { title: 'Very slow pages', severity: ['major'], stage: ['investigating'], description: '' }));
    let got = (await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes;
    expect(got).toMatchObject({ title: 'Very slow pages', status: 'major' });
    expect(got.updates).toHaveLength(1);

    const posted = await send(modalSubmit(`incident:update:${id}`, { title: 'Very slow pages', severity: ['major'], stage: ['monitoring'], description: 'CDN fixed' }));
    expect(posted.body.data).toMatchObject({ flags: EPHEMERAL, content: `Updated incident #${id}.` });
    got = (await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes;
    expect(got.updates.map((u: any) => [u.status, u.description])).toEqual([
      ['investigating', ''],
      ['monitoring', 'CDN fixed'],
    ]);
  });

  it('resolve closes an incident with the message; another company\'s incident does not exist', async () => {
    const id = await newIncident('Queue stuck');
    const res = await send(command('incident resolve', { id, message: 'Drained the queue' }));
    expect(res.body.data).toMatchObject({ flags: EPHEMERAL, content: `Resolved incident #${id}: Queue stuck` });
    const got = (await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes;
    expect(got.resolved).toBe(true);
    expect(got.updates.at(-1)).toMatchObject({ status: 'resolved', description: 'Drained the queue' });

    const globex = await s.api('POST', '/api/v2/incidents', { key: GLOBEX_KEY, body: { service_id: 2001, title: 'Theirs' } });
    const before = await count('incident_updates');
    const other = await send(command('incident resolve', { id: Number(globex.body.data.id) }));
    expect(other.body.data.content).toBe('The incident does not exist.');
    expect(await count('incident_updates')).toBe(before);
  });

  it('list shows the open incidents; show the timeline with the buttons', async () => {
    const id = await newIncident('Login errors', { description: 'Users see 500s' });
    await send(modalSubmit(`incident:update:${id}`, { title: 'Login errors', severity: ['minor'], stage: ['identified'], description: 'Bad deploy' }));
    const list = await send(command('incident list'));
    expect(list.body.type).toBe(4);
    expect(list.body.data.flags).toBe(EPHEMERAL);
    expect(list.body.data.embeds[0].description).toContain(`**#${id}** Login errors · Acme API`);

    const show = await send(command('incident show', { id }));
    expect(show.body.data.flags).toBe(EPHEMERAL);
    const embed = show.body.data.embeds[0];
    expect(embed.title).toContain(`#${id} Login errors`);
    expect(embed.fields.filter((f: any) => !f.inline).map((f: any) => f.value)).toEqual(['Users see 500s', 'Bad deploy']);
    expect(show.body.data.components[0].components.map((b: any) => b.custom_id)).toEqual([`incident:update:${id}`, `incident:resolve:${id}`]);
  });
});

describe('buttons on incident messages', () => {
  it('open the update and resolve modals; the resolve modal resolves', async () => {
    const id = await newIncident('Disk full');
    const update = await send(button(`incident:update:${id}`));
    expect(update.body).toMatchObject({ type: 9, data: { custom_id: `incident:update:${id}` } });
    const resolve = await send(button(`incident:resolve:${id}`));
    expect(resolve.body).toMatchObject({ type: 9, data: { custom_id: `incident:resolve:${id}` } });
    expect(resolve.body.data.components.map((c: any) => c.component.custom_id)).toEqual(['description']);

    const done = await send(modalSubmit(`incident:resolve:${id}`, { description: 'Cleaned up' }));
    expect(done.body.data.content).toBe(`Resolved incident #${id}: Disk full`);
    expect((await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes.resolved).toBe(true);
  });

  it('in an unlinked guild only say how to link', async () => {
    const res = await send(button('incident:update:1', { guild: '335' }));
    expect(res.body.data.content).toContain('/statusbot link');
  });
});

describe('/status and autocomplete', () => {
  it('shows a service with its open incidents', async () => {
    const id = await newIncident('Edge errors', { severity: ['major'] });
    const res = await send(command('status', { service: 'acme-api' }));
    const embed = res.body.data.embeds[0];
    expect(embed.title).toBe('Acme API: 🔴 Major outage');
    expect(embed.description).toContain(`**#${id}** Edge errors`);
    const byName = await send(command('status', { service: 'acme api' }));
    expect(byName.body.data.embeds[0].title).toBe('Acme API: 🔴 Major outage');
    const unknown = await send(command('status', { service: 'globex-api' }));
    expect(unknown.body.data.content).toBe('The service does not exist.');
  });

  it('suggests visible services for /status, own services for /incident new, open incidents for ids', async () => {
    const status = await send(autocomplete('status', { service: 'acme' }, 'service'));
    expect(status.body.type).toBe(8);
    expect(status.body.data.choices.map((c: any) => c.value)).toEqual(['acme-api', 'acme-cloud', 'acme-web']);
    const own = await send(autocomplete('incident new', { service: 'a' }, 'service'));
    expect(own.body.data.choices.map((c: any) => c.value)).toEqual(['acme-api', 'acme-web']);
    const id = await newIncident('Searchable outage');
    const ids = await send(autocomplete('incident resolve', { id: 'searchable' }, 'id'));
    expect(ids.body.data.choices).toEqual([{ name: `#${id} Searchable outage (Acme API)`, value: id }]);
  });
});
