import { createHmac, randomUUID } from 'node:crypto';
import type { ManualClock } from '../../src/domain/clock.js';
import { FAKE_BOT_TOKEN } from '../fakes/fake-slack.js';
import type { FakeSlack, SlackCall } from '../fakes/fake-slack.js';
import { ACME_KEY, GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer, TestServerOptions } from '../helpers/test-server.js';

export const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
export { ACME_KEY, GLOBEX_KEY };
export const ACME_TEAM = 'TACME';
export const GLOBEX_TEAM = 'TGLOBEX';
export const INCIDENTS_CHANNEL = 'CINCIDENTS';
export const STATUS_CHANNEL = 'CSTATUS';
export const BOARD_ID = '5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01';

/** Acme's workspace is linked in the config, with one channel following its incidents and one acme-api's status; Globex's is not. */
export const SLACK_CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
services:
  - { urlname: acme-cloud, name: Acme Cloud }
  - { urlname: other-cloud, name: Other Cloud }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    boards:
      - id: ${BOARD_ID}
        name: Vendors
        urlname: vendors
        services: [{ urlname: acme-cloud }]
    slack: { team_id: ${ACME_TEAM} }
    channels:
      - { slack: ${INCIDENTS_CHANNEL}, incidents: true }
      - { slack: ${STATUS_CHANNEL}, services: [acme-api] }
  - name: Globex
    plan: business
    api_keys: ["${GLOBEX_KEY}"]
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
`;

export async function startSlackServer(
  fake: FakeSlack,
  options: { delivery?: TestServerOptions['delivery']; dbPath?: string; clock?: ManualClock; config?: string } = {},
): Promise<TestServer> {
  return startTestServer({
    config: options.config ?? SLACK_CONFIG,
    env: { SLACK_BOT_TOKEN: FAKE_BOT_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: fake.apiUrl },
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
  command: '/statusbot' | '/incident' | '/status';
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

/** A click on a button of an announcement message. */
export function buttonClick(fake: FakeSlack, actionId: string, value: string, team = ACME_TEAM) {
  const id = randomUUID();
  return {
    id,
    triggerId: `trigger-${id}`,
    payload: {
      type: 'block_actions',
      team: { id: team, domain: 'acme' },
      user: { id: 'UALICE', username: 'alice', team_id: team },
      api_app_id: 'ASTATUSBOT',
      token: 'deprecated',
      trigger_id: `trigger-${id}`,
      response_url: fake.responseUrl(id),
      channel: { id: INCIDENTS_CHANNEL, name: 'incidents' },
      container: { type: 'message', message_ts: '1700000000.000001', channel_id: INCIDENTS_CHANNEL },
      message: { type: 'message', ts: '1700000000.000001', text: 'incident' },
      actions: [{ type: 'button', action_id: actionId, block_id: `incident:${value}`, value, text: { type: 'plain_text', text: 'x' }, action_ts: '1' }],
    },
  };
}
