import { createHmac, randomUUID } from 'node:crypto';
import type { ManualClock } from '../../src/domain/clock.js';
import { FAKE_BOT_TOKEN, startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack, SlackCall } from '../fakes/fake-slack.js';
import { ACME_KEY, GLOBEX_KEY, startTestServer } from './test-server.js';
import type { TestServer, TestServerOptions } from './test-server.js';
import { channelsBlock, chatConfig, settleOutbox } from './chat.js';
import type { Answer, Ask, ChatHarness, DigestSettings, FormShown, HarnessOptions, PlatformCall, Sent, Shown, Where } from './chat.js';

export const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
export { ACME_KEY, GLOBEX_KEY };
export const ACME_TEAM = 'TACME';
export const GLOBEX_TEAM = 'TGLOBEX';
export const INCIDENTS_CHANNEL = 'CINCIDENTS';
export const STATUS_CHANNEL = 'CSTATUS';

/** Acme's workspace is linked in the config, with one channel following its incidents and one acme-api's status; Globex's is not. */
export const SLACK_CONFIG = chatConfig(
  'slack',
  ACME_TEAM,
  channelsBlock('slack', (id) => id, [
    { channel: INCIDENTS_CHANNEL, incidents: true },
    { channel: STATUS_CHANNEL, services: ['acme-api'] },
  ]),
  '',
);

/** Slack on in HTTP mode, requests verified with the signing secret, Web API calls to the fake. */
export const slackEnv = (fake: FakeSlack, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  SLACK_BOT_TOKEN: FAKE_BOT_TOKEN,
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  SLACK_API_URL: fake.apiUrl,
  ...extra,
});

/** A server with Slack on (the SLACK_CONFIG unless told otherwise). */
export async function startSlackServer(
  fake: FakeSlack,
  options: { delivery?: TestServerOptions['delivery']; dbPath?: string; clock?: ManualClock; config?: string; logger?: TestServerOptions['logger'] } = {},
): Promise<TestServer> {
  return startTestServer({
    config: options.config ?? SLACK_CONFIG,
    env: slackEnv(fake),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.delivery ? { delivery: options.delivery } : {}),
    ...(options.dbPath ? { dbPath: options.dbPath } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

export const sign = (timestamp: number, body: string, secret = SIGNING_SECRET): string =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;

const nowSeconds = () => Math.floor(Date.now() / 1000);

export interface PostOptions {
  /** Seconds since the epoch; now by default. */
  timestamp?: number;
  /** A signature to send instead of the right one; null sends none. */
  signature?: string | null;
  contentType?: string;
}

/** A request to /slack/events as Slack sends it, signed with the signing secret unless told otherwise. */
export async function postEvent(s: TestServer, body: string, options: PostOptions = {}) {
  const timestamp = options.timestamp ?? nowSeconds();
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/x-www-form-urlencoded' };
  const signature = options.signature === undefined ? sign(timestamp, body) : options.signature;
  if (signature !== null) {
    headers['x-slack-signature'] = signature;
    headers['x-slack-request-timestamp'] = String(timestamp);
  }
  const res = await fetch(`${s.url}/slack/events`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? (JSON.parse(text) as any) : undefined };
}

export interface CommandFields {
  command: '/statusbot' | '/incident' | '/service';
  text: string;
  team?: string;
  channel?: string;
  user?: string;
}

/** A slash command's form body; its response_url and trigger_id are unique, so that its answers can be found. */
export function commandBody(fake: FakeSlack, fields: CommandFields) {
  const id = randomUUID();
  const form = new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: fields.team ?? ACME_TEAM,
    team_domain: 'acme',
    channel_id: fields.channel ?? 'CGENERAL',
    channel_name: 'general',
    user_id: fields.user ?? 'UALICE',
    user_name: 'alice',
    command: fields.command,
    text: fields.text,
    api_app_id: 'ASTATUSBOT',
    is_enterprise_install: 'false',
    response_url: fake.responseUrl(id),
    trigger_id: `trigger-${id}`,
  });
  return { id, body: form.toString(), triggerId: `trigger-${id}`, responseUrl: fake.responseUrl(id) };
}

export const answersTo = (fake: FakeSlack, responseId: string): SlackCall[] =>
  fake.calls.filter((c) => c.method === 'response_url' && c.path === `/respond/${encodeURIComponent(responseId)}`);

export const viewsOpenedWith = (fake: FakeSlack, triggerId: string): SlackCall[] =>
  fake.calls.filter((c) => c.method === 'views.open' && c.body.trigger_id === triggerId);

/** Sends a command and waits for its one ephemeral answer. */
export async function ask(s: TestServer, fake: FakeSlack, fields: CommandFields) {
  const { id, body } = commandBody(fake, fields);
  const res = await postEvent(s, body);
  if (res.status !== 200) throw new Error(`the command got HTTP ${res.status}`);
  const [answer] = await fake.waitFor(() => {
    const found = answersTo(fake, id);
    return found.length > 0 ? found : null;
  });
  return { ack: res, answer: answer!.body as { response_type?: string; text: string; blocks?: unknown[]; replace_original?: boolean } };
}

/** An interaction payload (view_submission, block_actions) as Slack posts it: a form with one `payload` field. */
export const interaction = (s: TestServer, payload: Record<string, unknown>, options: PostOptions = {}) =>
  postEvent(s, new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), options);

/** A view_submission of a modal the app opened, with values by block id. */
export function submission(
  opened: { callback_id: string; private_metadata: string },
  values: Record<string, string | { option: string } | null>,
  team = ACME_TEAM,
) {
  const state: Record<string, Record<string, unknown>> = {};
  for (const [block, value] of Object.entries(values)) {
    state[block] = {
      value:
        value !== null && typeof value === 'object'
          ? { type: 'static_select', selected_option: { value: value.option, text: { type: 'plain_text', text: value.option } } }
          : { type: 'plain_text_input', value },
    };
  }
  return {
    type: 'view_submission',
    team: { id: team, domain: 'acme' },
    user: { id: 'UALICE', name: 'alice', team_id: team },
    api_app_id: 'ASTATUSBOT',
    token: 'deprecated',
    trigger_id: `trigger-${randomUUID()}`,
    view: {
      id: 'V123',
      team_id: team,
      type: 'modal',
      callback_id: opened.callback_id,
      private_metadata: opened.private_metadata,
      state: { values: state },
      hash: '1.abc',
      blocks: [],
    },
  };
}

/** A click on a button of an announcement message (or, with `from`, of another message in another channel, by another user). */
export function buttonClick(
  fake: FakeSlack,
  actionId: string,
  value: string,
  team = ACME_TEAM,
  from: { channel: string; user: string; ephemeral: boolean } = { channel: INCIDENTS_CHANNEL, user: 'UALICE', ephemeral: false },
) {
  const id = randomUUID();
  return {
    id,
    triggerId: `trigger-${id}`,
    payload: {
      type: 'block_actions',
      team: { id: team, domain: 'acme' },
      user: { id: from.user, username: 'alice', team_id: team },
      api_app_id: 'ASTATUSBOT',
      token: 'deprecated',
      trigger_id: `trigger-${id}`,
      response_url: fake.responseUrl(id),
      channel: { id: from.channel, name: 'incidents' },
      container: { type: 'message', message_ts: '1700000000.000001', channel_id: from.channel, is_ephemeral: from.ephemeral },
      message: { type: 'message', ts: '1700000000.000001', text: 'incident' },
      actions: [
        {
          type: 'button',
          action_id: actionId,
          block_id: from.ephemeral ? actionId : `incident:${value}`,
          value,
          text: { type: 'plain_text', text: 'x' },
          action_ts: '1',
        },
      ],
    },
  };
}

/** Slack's ids for the harness's names. */
const slackWorkspace = (name: string) => (name === 'acme' ? ACME_TEAM : `T${name.toUpperCase().replace(/[^A-Z0-9]/g, '')}`);
const slackChannel = (name: string) => `C${name.toUpperCase().replace(/[^A-Z0-9]/g, '')}`;
const SLACK_MEMBERS = { admin: 'UALICE', member: 'UBOB', 'channel-manager': 'UCAROL' } as const;

/** Every visible text of Block Kit blocks, in order. */
function blockTexts(blocks: any[] | undefined): string[] {
  const out: string[] = [];
  for (const b of blocks ?? []) {
    if (b.text?.text) out.push(b.text.text);
    for (const f of b.fields ?? []) out.push(f.text);
    for (const e of b.elements ?? []) if (e.type === 'mrkdwn' || e.type === 'plain_text') out.push(e.text);
  }
  return out;
}
const buttonsOf = (blocks: any[] | undefined): string[] =>
  (blocks ?? []).filter((b) => b.type === 'actions').flatMap((b) => b.elements.map((e: any) => e.text.text as string));

const SLACK_FORM_KIND: Record<string, FormShown['kind']> = { incident_new: 'new', incident_update: 'update', incident_resolve: 'resolve' };

function slackForm(view: any): FormShown {
  const inputs = view.blocks.filter((b: any) => b.type === 'input');
  const initial: Record<string, string> = {};
  for (const b of inputs) {
    const v = b.element.initial_value ?? b.element.initial_option?.value;
    if (v !== undefined) initial[b.block_id] = v;
  }
  return { kind: SLACK_FORM_KIND[view.callback_id]!, fields: inputs.map((b: any) => b.block_id), initial, raw: view };
}

/** The command line of a harness question. */
function slackCommand(a: Ask): CommandFields {
  const board = (s: DigestSettings = {}) =>
    [
      s.schedule !== undefined ? `schedule="${s.schedule}"` : '',
      s.timezone !== undefined ? `timezone=${s.timezone}` : '',
      s.only_on_change === undefined ? '' : s.only_on_change ? 'only-on-change' : 'only-on-change=false',
      s.edit_in_place === undefined ? '' : s.edit_in_place ? 'edit-in-place' : 'edit-in-place=false',
    ].filter(Boolean);
  switch (a.verb) {
    case 'help':
    case 'subscriptions':
    case 'maintenance':
      return { command: '/statusbot', text: a.verb };
    case 'link':
      return { command: '/statusbot', text: `link ${a.key}` };
    case 'subscribe':
    case 'unsubscribe':
      return { command: '/statusbot', text: [a.verb, a.target, a.name ?? '', ...board(a.settings)].filter(Boolean).join(' ') };
    case 'status':
      return a.via ? { command: '/statusbot', text: `status ${a.service}` } : { command: '/service', text: a.service };
    case 'report':
      return { command: '/statusbot', text: `report ${a.service}` };
    case 'incident list':
      return { command: '/incident', text: 'list' };
    case 'incident new':
      return { command: '/incident', text: ['new', a.service ?? '', a.lead ? `<@${SLACK_MEMBERS[a.lead]}>` : ''].filter(Boolean).join(' ') };
    case 'incident show':
      return { command: '/incident', text: `show ${a.id}` };
    case 'incident update':
      return { command: '/incident', text: `update ${a.id}${a.lead ? ` <@${SLACK_MEMBERS[a.lead]}>` : ''}` };
    case 'incident resolve':
      return { command: '/incident', text: `resolve ${a.id}${a.message ? ` ${a.message}` : ''}` };
    case 'incident lead':
      return { command: '/incident', text: `lead ${a.id ?? ''} <@${SLACK_MEMBERS[a.lead]}|${a.lead}>`.replace('  ', ' ') };
    case 'incident room':
      return { command: '/incident', text: `room ${a.id ?? ''}`.trim() };
    case 'incident note':
      return { command: '/incident', text: `note ${a.text}` };
    case 'incident postmortem':
      return { command: '/incident', text: `postmortem ${a.id ?? ''}`.trim() };
  }
}

/** A reaction_added event as Slack posts it to the Events API URL. */
export function reactionEvent(team: string, user: string, channel: string, ts: string, reaction = 'pushpin') {
  return {
    token: 'deprecated',
    team_id: team,
    api_app_id: 'ASTATUSBOT',
    type: 'event_callback',
    event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'reaction_added',
      user,
      reaction,
      item_user: user,
      item: { type: 'message', channel, ts, channel_type: 'channel' },
      event_ts: `${Date.now() / 1000}`,
    },
    authorizations: [{ team_id: team, user_id: 'UBOT', is_bot: true, is_enterprise_install: false }],
  };
}

/** Waits for what a command or click brought: an ephemeral answer on its response_url, or a modal opened with its trigger_id. */
async function slackAnswer(fake: FakeSlack, responseId: string, triggerId: string): Promise<Answer> {
  const found = await fake.waitFor(() => viewsOpenedWith(fake, triggerId)[0] ?? answersTo(fake, responseId)[0]);
  if (found.method === 'views.open') {
    return { text: '', ephemeral: true, buttons: [], form: slackForm(found.body.view), raw: found.body };
  }
  const body = found.body as { response_type?: string; text: string; blocks?: any[] };
  return { text: body.text, ephemeral: body.response_type === 'ephemeral', buttons: buttonsOf(body.blocks), form: null, raw: body };
}

/** The Slack harness, with its fake for what a table checks in Slack's own shapes. */
export interface SlackHarness extends ChatHarness {
  platform: 'slack';
  fake: FakeSlack;
}

/** A Web API call as a step: a reply is a message in a thread, an edit is chat.update; the message it concerns. */
function slackStep(call: { method: string; body: Record<string, any> }): Pick<Sent, 'step' | 'of'> {
  if (call.method === 'chat.postMessage') {
    const thread = typeof call.body.thread_ts === 'string' ? call.body.thread_ts : null;
    return { step: thread ? 'reply' : 'message', of: thread };
  }
  if (call.method === 'chat.update') return { step: 'edit', of: String(call.body.ts) };
  return { step: call.method, of: call.body.ts ?? null };
}

function slackSent(fake: FakeSlack, channelId: string): Sent[] {
  return fake.calls
    .filter((c) => c.ok && c.body.channel === channelId && c.method.startsWith('chat.'))
    .map((c) => ({ ...slackStep(c), at: c.at, body: c.body, headers: c.headers }));
}

const slackCall = (c: { method: string; body: Record<string, any> }): Pick<PlatformCall, 'step' | 'channel'> => ({
  step: slackStep(c).step,
  channel: typeof c.body.channel === 'string' ? c.body.channel : null,
});

/** The harness of the table-driven chat tests on Slack: the real Bolt app against the fake Web API. */
export async function startSlackHarness(options: HarnessOptions = {}): Promise<SlackHarness> {
  const fake = await startFakeSlack();
  fake.users.set(SLACK_MEMBERS['channel-manager'], {});
  const channels = channelsBlock('slack', slackChannel, options.channels);
  const startServer = (delivery = options.delivery) =>
    startSlackServer(fake, {
      config: chatConfig('slack', ACME_TEAM, channels, `, admins: [${SLACK_MEMBERS['channel-manager']}]`, options.incidentChannels, options.boardServices),
      ...(delivery ? { delivery } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.dbPath ? { dbPath: options.dbPath } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  let s = await startServer();
  const teamOf = (w: Where) => slackWorkspace(w.workspace ?? 'acme');
  const ask = async (a: Ask, where: Where = {}): Promise<Answer> => {
    const fields = {
      ...slackCommand(a),
      team: teamOf(where),
      channel: where.channelId ?? slackChannel(where.channel ?? 'general'),
      user: SLACK_MEMBERS[where.member ?? 'admin'],
    };
    const { id, body, triggerId } = commandBody(fake, fields);
    const res = await postEvent(s, body);
    if (res.status !== 200 || res.text !== '') throw new Error(`the command got HTTP ${res.status} ${res.text}`);
    return slackAnswer(fake, id, triggerId);
  };
  const shownIn = (channelId: string): Shown[] => {
    const all = fake.messages.get(channelId) ?? [];
    return all
      .filter((m) => m.threadTs === null && !m.user)
      .map((m) => ({
        id: m.ts,
        headline: m.text,
        text: [m.text, ...blockTexts(m.blocks)].join('\n'),
        replies: all.filter((r) => r.threadTs === m.ts).map((r) => r.text),
        edits: m.edits,
        buttons: buttonsOf(m.blocks),
      }));
  };
  return {
    platform: 'slack',
    get s() {
      return s;
    },
    fake,
    bold: (t) => `*${t}*`,
    code: (t) => `\`${t}\``,
    channelId: slackChannel,
    workspaceId: slackWorkspace,
    ask,
    async submit(form, values, where = {}) {
      const selects = new Set(['service', 'severity', 'stage']);
      const state: Record<string, string | { option: string } | null> = {};
      for (const field of form.fields) {
        const v = (values as Record<string, string | undefined>)[field] ?? form.initial[field] ?? null;
        state[field] = v !== null && selects.has(field) ? { option: v } : v;
      }
      const responseUrl = JSON.parse(form.raw.private_metadata).responseUrl as string;
      const path = new URL(responseUrl).pathname;
      const before = fake.calls.filter((c) => c.path === path).length;
      const res = await interaction(s, submission(form.raw, state, teamOf(where)));
      if (res.json?.response_action === 'errors') {
        const errors = res.json.errors as Record<string, string>;
        return { text: Object.values(errors).join('\n'), fieldErrors: errors };
      }
      if (res.status !== 200 || res.text !== '') throw new Error(`the submission got HTTP ${res.status} ${res.text}`);
      const answer = await fake.waitFor(() => fake.calls.filter((c) => c.path === path)[before]);
      return { text: answer.body.text as string, fieldErrors: null };
    },
    async click(incidentId, button, where = {}) {
      const click = buttonClick(fake, button === 'update' ? 'incident_post_update' : 'incident_resolve', String(incidentId), teamOf(where));
      await interaction(s, click.payload);
      return slackAnswer(fake, click.id, click.triggerId);
    },
    async clickReport(service, where = {}) {
      const status = await ask({ verb: 'status', service }, where);
      const control = (status.raw.blocks ?? [])
        .filter((b: any) => b.type === 'actions')
        .flatMap((b: any) => b.elements)
        .find((e: any) => e.text.text === 'Report a problem');
      if (!control) throw new Error(`no "Report a problem" button on the status of ${service}`);
      const from = { channel: slackChannel(where.channel ?? 'general'), user: SLACK_MEMBERS[where.member ?? 'admin'], ephemeral: true };
      const click = buttonClick(fake, control.action_id, control.value, teamOf(where), from);
      await interaction(s, click.payload);
      return slackAnswer(fake, click.id, click.triggerId);
    },
    shown: (channel) => shownIn(slackChannel(channel)),
    shownIn,
    sent: (channelId) => slackSent(fake, channelId),
    calls: () => fake.calls.map((c) => ({ ...slackCall(c), status: c.status, retryAfterSeconds: c.retryAfterSeconds ?? null, at: c.at })),
    failNext(count, failure, pick) {
      // Slack has no global rate limit.
      const slack = failure.status === 429 ? { status: 429 as const, retryAfterSeconds: failure.retryAfterSeconds } : failure;
      fake.failNext(count, slack, pick ? (c) => pick(slackCall(c)) : undefined);
    },
    async restart(o = {}) {
      if (!options.dbPath) throw new Error('restart needs the harness started with a dbPath');
      await s.stop();
      await o.meanwhile?.();
      s = await startServer(o.delivery ?? options.delivery);
    },
    memberId: (member = 'admin') => SLACK_MEMBERS[member],
    rooms: () => fake.channels.map((c) => ({ id: c.id, name: c.name, members: c.members.filter((m) => m !== 'UBOT') })),
    say: (channelId, text, member = 'admin') => fake.say(channelId, SLACK_MEMBERS[member], text),
    async pin(channelId, ts, member = 'admin') {
      const res = await postEvent(s, JSON.stringify(reactionEvent(ACME_TEAM, SLACK_MEMBERS[member], channelId, ts)), { contentType: 'application/json' });
      if (res.status !== 200) throw new Error(`the reaction got HTTP ${res.status} ${res.text}`);
    },
    filesIn: (channelId) =>
      fake.files.filter((f) => f.channel === channelId).map((f) => ({ filename: f.filename, content: f.content, comment: f.initialComment ?? '' })),
    refuseNextFile: () => fake.failNext(1, { status: 200, error: 'not_in_channel' }, (c) => c.method === 'files.completeUploadExternal'),
    failNextInvite: (times = 1) => fake.failNext(times, { status: 500 }, (c) => c.method === 'conversations.invite'),
    refuseNextInvite: () => fake.failNext(1, { status: 200, error: 'cant_invite' }, (c) => c.method === 'conversations.invite'),
    heal: () => fake.heal(),
    refuseNextRoom: () => fake.failNext(1, { status: 200, error: 'name_taken' }, (c) => c.method === 'conversations.create'),
    deleteMessage(channel, ts) {
      const list = fake.messages.get(slackChannel(channel)) ?? [];
      list.splice(
        list.findIndex((m) => m.ts === ts),
        1,
      );
    },
    settle: () => settleOutbox(s, 'slack'),
    async stop() {
      await s.stop();
      await fake.close();
    },
  };
}
