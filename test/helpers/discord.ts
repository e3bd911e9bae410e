import { CHANNEL, GUILD, PERMISSIONS, button, command, modalSubmit } from '../fakes/discord-interactions.js';
import { FAKE_APPLICATION_ID, FAKE_DISCORD_TOKEN, startFakeDiscord } from '../fakes/fake-discord.js';
import { startFakeGateway } from '../fakes/fake-discord-gateway.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { channelsBlock, chatConfig, settleOutbox } from './chat.js';
import type { Answer, Ask, ChatHarness, FormShown, HarnessOptions, PlatformCall, Sent, Shown, Where } from './chat.js';
import { startTestServer } from './test-server.js';
import type { TestServer, TestServerOptions } from './test-server.js';

/** Discord on, HTTP interactions verified with the fake's key, REST calls to the fake, no gateway. */
export const discordEnv = (fake: FakeDiscord, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
  DISCORD_APPLICATION_ID: FAKE_APPLICATION_ID,
  DISCORD_PUBLIC_KEY: fake.publicKey,
  DISCORD_API_URL: fake.apiUrl,
  DISCORD_GATEWAY: 'off',
  ...extra,
});

/** Acme acts in guild 111 (from the config), its channels as given; Globex is not linked anywhere. */
export const discordConfig = (channels = '') => chatConfig('discord', GUILD, channels, '');

/** A server with Discord on (Acme in guild 111, with these channels, unless another config is given). */
export async function startDiscordServer(
  fake: FakeDiscord,
  options: {
    delivery?: TestServerOptions['delivery'];
    dbPath?: string;
    clock?: TestServerOptions['clock'];
    config?: string;
    env?: NodeJS.ProcessEnv;
    logger?: TestServerOptions['logger'];
  } = {},
): Promise<TestServer> {
  return startTestServer({
    config: options.config ?? discordConfig(),
    env: discordEnv(fake, options.env),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.delivery ? { delivery: options.delivery } : {}),
    ...(options.dbPath ? { dbPath: options.dbPath } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/** Discord's ids for the harness's names: snowflake-like numbers, the same name always the same id. */
const discordIds = new Map<string, string>([
  ['workspace:acme', GUILD],
  ['channel:general', CHANNEL],
]);
function discordId(kind: 'workspace' | 'channel', name: string): string {
  const key = `${kind}:${name}`;
  if (!discordIds.has(key)) discordIds.set(key, String(300 + discordIds.size));
  return discordIds.get(key)!;
}
const DISCORD_MEMBERS = { admin: PERMISSIONS.administrator, member: PERMISSIONS.none, 'channel-manager': PERMISSIONS.manageChannels } as const;
const DISCORD_USERS = { admin: '700000000000000001', member: '700000000000000002', 'channel-manager': '700000000000000003' } as const;

/** Every visible text of embeds, in order. */
function embedTexts(embeds: any[] | undefined): string[] {
  return (embeds ?? []).flatMap((e) => [e.title, e.description, ...(e.fields ?? []).map((f: any) => `${f.name}: ${f.value}`), e.footer?.text].filter(Boolean));
}
const buttonsOf = (components: any[] | undefined): string[] =>
  (components ?? []).flatMap((row) => (row.components ?? []).filter((c: any) => c.type === 2).map((c: any) => c.label as string));

function discordForm(data: any): FormShown {
  const inputs = data.components.map((c: any) => c.component);
  const initial: Record<string, string> = {};
  for (const c of inputs) {
    const v = c.value ?? c.options?.find((o: any) => o.default)?.value;
    if (v !== undefined) initial[c.custom_id] = v;
  }
  const kind = /^incident:(new|update|resolve):/.exec(data.custom_id)![1] as FormShown['kind'];
  return { kind, fields: inputs.map((c: any) => c.custom_id), initial, raw: data };
}

/** The command and options of a harness question. */
function discordCommand(a: Ask): [string, Record<string, string | number | boolean>] {
  switch (a.verb) {
    case 'help':
    case 'subscriptions':
    case 'maintenance':
      return [`statusbot ${a.verb}`, {}];
    case 'link':
      return ['statusbot link', { key: a.key }];
    case 'subscribe':
    case 'unsubscribe': {
      const options: Record<string, string | number | boolean> = { ...(a.verb === 'subscribe' ? a.settings : {}) };
      if (a.name !== undefined) options[a.target] = a.name;
      return [`statusbot ${a.verb} ${a.target}`, options];
    }
    case 'status':
      return [a.via ? 'statusbot status' : 'status', { service: a.service }];
    case 'report':
      return ['statusbot report', { service: a.service }];
    case 'incident list':
      return ['incident list', {}];
    case 'incident new':
      return ['incident new', { ...(a.service ? { service: a.service } : {}), ...(a.lead ? { lead: DISCORD_USERS[a.lead] } : {}) }];
    case 'incident show':
      return [a.verb, { id: a.id }];
    case 'incident update':
      return [a.verb, { id: a.id, ...(a.lead ? { lead: DISCORD_USERS[a.lead] } : {}) }];
    case 'incident resolve':
      return ['incident resolve', { id: a.id, ...(a.message ? { message: a.message } : {}) }];
    case 'incident lead':
      return ['incident lead', { lead: DISCORD_USERS[a.lead], ...(a.id ? { id: a.id } : {}) }];
    case 'incident room':
      return ['incident room', a.id ? { id: a.id } : {}];
    case 'incident note':
      return ['incident note', { text: a.text }];
    case 'incident postmortem':
      return ['incident postmortem', a.id ? { id: a.id } : {}];
  }
}

function discordAnswer(body: any): Answer {
  if (body.type === 9) return { text: '', ephemeral: true, buttons: [], form: discordForm(body.data), raw: body };
  const data = body.data;
  const text = [data.content, ...embedTexts(data.embeds)].filter(Boolean).join('\n');
  return { text, ephemeral: data.flags === 64, buttons: buttonsOf(data.components), form: null, raw: body };
}

/** The Discord harness, with its fake for what a table checks in Discord's own shapes. */
export interface DiscordHarness extends ChatHarness {
  platform: 'discord';
  fake: FakeDiscord;
}

/** A REST call as a step: a reply is a message with a reference, an edit is a PATCH of a message; the message it concerns. */
function discordStep(call: { method: string; path: string; body: any }): Pick<Sent, 'step' | 'of'> {
  const message = /^\/channels\/\d+\/messages(?:\/(\d+))?$/.exec(call.path);
  if (message && call.method === 'POST' && !message[1]) {
    const reference = call.body?.message_reference?.message_id ?? null;
    return { step: reference ? 'reply' : 'message', of: reference };
  }
  if (message?.[1] && call.method === 'PATCH') return { step: 'edit', of: message[1] };
  return { step: `${call.method} ${call.path}`, of: null };
}

function discordSent(fake: FakeDiscord, channelId: string): Sent[] {
  return fake
    .ok()
    .filter((c) => c.path.startsWith(`/channels/${channelId}/`))
    .map((c) => ({ ...discordStep(c), at: c.at, body: c.body, headers: c.headers }));
}

const discordCall = (c: { method: string; path: string; body: any }): Pick<PlatformCall, 'step' | 'channel'> => ({
  step: discordStep(c).step,
  channel: /^\/channels\/(\d+)\//.exec(c.path)?.[1] ?? null,
});

/** The harness of the table-driven chat tests on Discord: the real interaction handler over signed HTTP, against the fake REST API. */
export async function startDiscordHarness(options: HarnessOptions = {}): Promise<DiscordHarness> {
  const fake = await startFakeDiscord();
  // Reactions arrive over the gateway only.
  const gateway = options.gateway ? await startFakeGateway(FAKE_APPLICATION_ID) : null;
  if (gateway) fake.gatewayUrl = gateway.url;
  const channelId = (name: string) => discordId('channel', name);
  const startServer = (delivery = options.delivery) =>
    startDiscordServer(fake, {
      config: chatConfig('discord', GUILD, channelsBlock('discord', channelId, options.channels), '', options.incidentChannels, options.boardServices),
      ...(delivery ? { delivery } : {}),
      ...(gateway ? { env: { DISCORD_GATEWAY: 'on' } } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.dbPath ? { dbPath: options.dbPath } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  let s = await startServer();
  if (gateway) await gateway.ready;
  const shownIn = (id: string): Shown[] => {
    const all = fake.channel(id);
    return all
      .filter((m) => m.replyTo === null && !m.authorId)
      .map((m) => ({
        id: m.id,
        headline: m.body.embeds?.[0]?.title ?? m.body.content ?? '',
        text: [m.body.content, ...embedTexts(m.body.embeds)].filter(Boolean).join('\n'),
        replies: all.filter((r) => r.replyTo === m.id).map((r) => embedTexts(r.body.embeds).join('\n')),
        edits: m.edits,
        buttons: buttonsOf(m.body.components),
      }));
  };
  const where = (w: Where = {}) => ({
    guild: discordId('workspace', w.workspace ?? 'acme'),
    channel: w.channelId ?? channelId(w.channel ?? 'general'),
    permissions: DISCORD_MEMBERS[w.member ?? 'admin'],
    userId: DISCORD_USERS[w.member ?? 'admin'],
  });
  const send = async (interaction: { token: string }) => {
    const res = await fake.interact(s.url, interaction, { now: s.clock.now() });
    if (res.status !== 200) throw new Error(`the interaction got HTTP ${res.status}`);
    if (res.body.type !== 5) return res.body;
    // Deferred: what the asker sees is the message that fills the response (a follow-up, or the edit that tells of a failure).
    const shown = await fake.waitFor(() => [...fake.messages.values()].find((m) => m.interactionToken === interaction.token));
    return { type: 4, data: shown.body };
  };
  return {
    platform: 'discord',
    get s() {
      return s;
    },
    fake,
    bold: (t) => `**${t}**`,
    code: (t) => `\`${t}\``,
    channelId,
    workspaceId: (name) => discordId('workspace', name),
    async ask(a, w) {
      const [path, opts] = discordCommand(a);
      return discordAnswer(await send(command(path, opts, where(w))));
    },
    async submit(form, values, w) {
      const selects = new Set(['service', 'severity', 'stage']);
      const fields: Record<string, string | string[]> = {};
      for (const field of form.fields) {
        const v = (values as Record<string, string | undefined>)[field] ?? form.initial[field] ?? '';
        fields[field] = selects.has(field) ? (v === '' ? [] : [v]) : v;
      }
      const answer = discordAnswer(await send(modalSubmit(form.raw.custom_id, fields, where(w))));
      return { text: answer.text, fieldErrors: null };
    },
    async click(incidentId, which, w) {
      return discordAnswer(await send(button(`incident:${which}:${incidentId}`, where(w))));
    },
    async clickReport(service, w) {
      const status = discordAnswer(await send(command('status', { service }, where(w))));
      const control = (status.raw.data.components ?? []).flatMap((row: any) => row.components).find((c: any) => c.type === 2 && c.label === 'Report a problem');
      if (!control) throw new Error(`no "Report a problem" button on the status of ${service}`);
      return discordAnswer(await send(button(control.custom_id, where(w))));
    },
    shown: (channel) => shownIn(channelId(channel)),
    shownIn,
    sent: (id) => discordSent(fake, id),
    calls: () => fake.calls.map((c) => ({ ...discordCall(c), status: c.status, retryAfterSeconds: c.retryAfterSeconds ?? null, at: c.at })),
    failNext: (count, failure, pick) => fake.failNext(count, failure, pick ? (c) => pick(discordCall(c)) : undefined),
    async restart(o = {}) {
      if (!options.dbPath) throw new Error('restart needs the harness started with a dbPath');
      if (gateway) throw new Error('restart does not reconnect the gateway');
      await s.stop();
      await o.meanwhile?.();
      s = await startServer(o.delivery ?? options.delivery);
    },
    memberId: (member = 'admin') => DISCORD_USERS[member],
    rooms: () => fake.channels.map((c) => ({ id: c.id, name: c.name, members: [...c.members] })),
    say: (id, text, member = 'admin') => fake.say(id, DISCORD_USERS[member], text),
    async pin(id, messageId, member = 'admin') {
      if (!gateway) throw new Error('reactions need the harness started with gateway: true');
      gateway.dispatch('MESSAGE_REACTION_ADD', {
        user_id: DISCORD_USERS[member],
        channel_id: id,
        message_id: messageId,
        guild_id: GUILD,
        emoji: { id: null, name: '📌' },
        type: 0,
        burst: false,
      });
    },
    filesIn: (id) =>
      fake.channel(id).flatMap((m) => (m.files ?? []).map((f) => ({ filename: f.filename, content: f.content, comment: String(m.body.content ?? '') }))),
    refuseNextFile: () => fake.failNext(1, { status: 403 }, (c) => c.method === 'POST' && /^\/webhooks\/\d+\/[^/]+$/.test(c.path)),
    failNextInvite: (times = 1) => fake.failNext(times, { status: 500 }, (c) => c.method === 'PUT' && /^\/channels\/\d+\/permissions\//.test(c.path)),
    refuseNextInvite: () => fake.failNext(1, { status: 403 }, (c) => c.method === 'PUT' && /^\/channels\/\d+\/permissions\//.test(c.path)),
    heal: () => fake.heal(),
    refuseNextRoom: () => fake.failNext(1, { status: 403 }, (c) => c.method === 'POST' && /^\/guilds\/\d+\/channels$/.test(c.path)),
    deleteMessage: (_channel, id) => fake.deleteMessage(id),
    settle: () => settleOutbox(s, 'discord'),
    async stop() {
      await s.stop();
      await gateway?.close();
      await fake.close();
    },
  };
}
