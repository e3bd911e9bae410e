import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyForWorkspace } from '../../src/domain/chat/chat-links.js';
import { startFakeDiscord } from '../fakes/fake-discord.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { APPLICATION, CHANNEL, autocomplete, command, modalSubmit, ping } from '../fakes/discord-interactions.js';
import { discordConfig, discordEnv } from '../helpers/discord.js';
import { GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/** What only Discord has: signed HTTP interactions, autocomplete, modals of labelled components. The verbs themselves: test/chat. */
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

async function newIncident(title: string, fields: Record<string, string | string[]> = {}) {
  const res = await send(modalSubmit('incident:new:1001', { title, severity: ['minor'], stage: ['investigating'], description: '', ...fields }));
  expect(res.body.data.content, JSON.stringify(res.body)).toMatch(/^Opened incident \*\*#\d+\*\*/);
  return Number(/#(\d+)/.exec(res.body.data.content)![1]);
}

describe('transport', () => {
  it('answers a signed PING with PONG', async () => {
    const res = await send(ping());
    expect(res).toEqual({ status: 200, body: { type: 1 } });
  });

  it('answers another method with 405', async () => {
    const res = await fetch(`${s.url}/discord/interactions`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
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

  it('answers a direct message with where statusbot works', async () => {
    const res = await send(command('incident list', {}, { guild: null }));
    expect(res.body.data).toMatchObject({ flags: 64, content: expect.stringContaining('not in direct messages') });
  });
});

describe('modals', () => {
  it("new: the chosen service preselected among the company's, then title, severity, stage, description", async () => {
    const res = await send(command('incident new', { service: 'acme-api' }));
    expect(res.body.type).toBe(9);
    expect(res.body.data.custom_id).toBe('incident:new:1001');
    expect(res.body.data.title).toBe('New incident: Acme API');
    const components = res.body.data.components.map((c: any) => c.component);
    expect(components.map((c: any) => c.custom_id)).toEqual(['service', 'title', 'severity', 'stage', 'description']);
    expect(components[0].options.map((o: any) => [o.value, o.label, o.default])).toEqual([
      ['1001', 'Acme API', true],
      ['1002', 'Acme Web', false],
    ]);
    expect(components[1].max_length).toBe(255);
  });

  it('update: its custom id carries the stage it showed; a submission of an older modal without it still works', async () => {
    const id = await newIncident('Slow pages');
    const res = await send(command('incident update', { id }));
    expect(res.body).toMatchObject({ type: 9, data: { custom_id: `incident:update:${id}:investigating` } });
    const old = await send(
      modalSubmit(`incident:update:${id}`, { title: 'Very slow pages', severity: ['major'], stage: ['monitoring'], description: 'CDN fixed' }),
    );
    expect(old.body.data).toMatchObject({ flags: 64, content: `Updated incident **#${id}**: Very slow pages` });
    const got = (await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes;
    expect(got.updates.map((u: any) => [u.status, u.description])).toEqual([
      ['investigating', ''],
      ['monitoring', 'CDN fixed'],
    ]);
  });

  it('a button or form whose custom id statusbot never made is answered, not failed', async () => {
    const res = await send(modalSubmit('something:else', { title: 'x' }));
    expect(res.body.data).toMatchObject({ flags: 64, content: expect.stringContaining('no longer supported') });
  });
});

describe('files', () => {
  it('/incident postmortem defers in the channel, then posts the file as a follow-up: multipart, payload_json and files[0]', async () => {
    const id = await newIncident('Queue — backlog');
    const interaction = command('incident postmortem', { id });
    const res = await send(interaction);
    // No interaction response carries a file over HTTP: deferred, shown to all, as the file will be.
    expect(res.body).toEqual({ type: 5 });

    const followUp = await fake.waitFor(() => fake.ok(/^POST \/webhooks\//).find((c) => c.path === `/webhooks/${APPLICATION}/${interaction.token}`));
    expect(followUp.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    // Authorized by the interaction's token alone.
    expect(followUp.headers.authorization).toBeUndefined();
    expect(followUp.body).toMatchObject({
      content: `Postmortem of incident **#${id}**: Queue — backlog`,
      attachments: [{ id: 0, filename: `incident-${id}-postmortem.md` }],
      allowed_mentions: { parse: [] },
    });
    expect(followUp.files!.map((f) => [f.field, f.filename, f.contentType])).toEqual([
      ['files[0]', `incident-${id}-postmortem.md`, 'text/markdown; charset=utf-8'],
    ]);

    const [message] = fake.channel(CHANNEL).filter((m) => m.interactionToken === interaction.token);
    const api = await s.api('GET', `/api/v2/incidents/${id}/postmortem`);
    expect(message!.files!.map((f) => f.content)).toEqual([api.text]);
  });
});

describe('autocomplete', () => {
  it('suggests visible services for /status, own services for /incident new, open incidents for ids; nothing in an unlinked guild', async () => {
    const status = await send(autocomplete('status', { service: 'acme' }, 'service'));
    expect(status.body.type).toBe(8);
    expect(status.body.data.choices.map((c: any) => c.value)).toEqual(['acme-api', 'acme-cloud', 'acme-web']);
    const own = await send(autocomplete('incident new', { service: 'a' }, 'service'));
    expect(own.body.data.choices.map((c: any) => c.value)).toEqual(['acme-api', 'acme-web']);
    const id = await newIncident('Searchable outage');
    const ids = await send(autocomplete('incident resolve', { id: 'searchable' }, 'id'));
    expect(ids.body.data.choices).toEqual([{ name: `#${id} Searchable outage (Acme API)`, value: id }]);
    const hint = await send(autocomplete('status', { service: 'acme' }, 'service', { guild: UNLINKED }));
    expect(hint.body).toEqual({ type: 8, data: { choices: [] } });
  });
});
