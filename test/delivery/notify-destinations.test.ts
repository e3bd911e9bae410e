import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/domain/companies/api-keys.js';
import { createIncident } from '../../src/domain/incidents/incident-service.js';
import { startFakeOpsgenie } from '../fakes/fake-opsgenie.js';
import { startFakePagerDuty } from '../fakes/fake-pagerduty.js';
import { startFakeTeams } from '../fakes/fake-teams.js';
import { startFakeTelegram } from '../fakes/fake-telegram.js';
import type { FakeTelegram } from '../fakes/fake-telegram.js';
import type { FakeJsonApi } from '../fakes/fake-json-api.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, acmeConfig, startTestServer } from '../helpers/test-server.js';
import type { TestServer, TestServerOptions } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const ROUTING_KEY = 'R0UT1NGKEY';
const GENIE_KEY = 'eb243592-faa2-4ba2-a551q-1afdf565c889';
const BOT_TOKEN = '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11';
const CHAT = '-1001234567890';
const SIG = 'Sx9Qv3Wm1pKkSIGNATURE';
const FAST = { enabled: true, baseDelayMs: 20, maxDelayMs: 80, pollMs: 10 } as const;

let pagerduty: FakeJsonApi;
let opsgenie: FakeJsonApi;
let teams: FakeJsonApi;
let telegram: FakeTelegram;
let database: TestDatabase;
const servers: TestServer[] = [];

const config = (extra = '', monitors = '') =>
  acmeConfig({
    top: extra,
    company: `${monitors}    notify:
      - { pagerduty: { routing_key: "${ROUTING_KEY}", url: "${pagerduty.url}/v2/enqueue" } }
      - { opsgenie: { api_key: "${GENIE_KEY}", url: "${opsgenie.url}" } }
      - { teams: { webhook: "${teams.url}/workflows/abc/triggers/manual/paths/invoke?api-version=1&sig=${SIG}" } }
      - { telegram: { bot_token: "${BOT_TOKEN}", chat_id: "${CHAT}", api_url: "${telegram.url}" } }`,
  });

beforeEach(async () => {
  [pagerduty, opsgenie, teams, telegram, database] = await Promise.all([
    startFakePagerDuty(ROUTING_KEY),
    startFakeOpsgenie(GENIE_KEY),
    startFakeTeams(),
    startFakeTelegram(BOT_TOKEN),
    createTestDatabase(),
  ]);
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await Promise.all([pagerduty.close(), opsgenie.close(), teams.close(), telegram.close()]);
  await database.drop();
});

async function start(options: { delivery?: TestServerOptions['delivery']; extra?: string; monitors?: string } = {}) {
  const s = await startTestServer({ config: config(options.extra, options.monitors), dbPath: database.path, delivery: options.delivery ?? FAST });
  servers.push(s);
  return s;
}

/** Opens an incident, posts an update and resolves it; returns its id. */
async function lifecycle(s: TestServer, status: 'major' | 'minor', title = 'API down'): Promise<number> {
  const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title, status, description: 'Requests fail.' } });
  expect(created.status).toBe(201);
  const id = Number(created.body.data.id);
  await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Fix rolling out <now> & soon', resolution_stage: 'identified' } });
  await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'All good again.', resolution_stage: 'resolved' } });
  return id;
}

const rows = (s: TestServer) => s.ctx.db.selectFrom('outbox').select(['stream', 'state', 'attempts', 'last_error', 'event']).orderBy('id').execute();
const allSent = async (s: TestServer, count: number) => {
  const all = await rows(s);
  return all.length === count && all.every((r) => r.state === 'sent');
};

describe('paging and chat destinations', () => {
  it('PagerDuty gets a trigger on open and on update, then a resolve, under one dedup key', async () => {
    const s = await start();
    const id = await lifecycle(s, 'major');
    await waitUntil(() => allSent(s, 12), { what: 'every destination told of all three changes' });
    expect(pagerduty.received.map((c) => c.json.event_action)).toEqual(['trigger', 'trigger', 'resolve']);
    const [open, update, resolve] = pagerduty.received.map((c) => c.json);
    expect(pagerduty.received[0]!.headers['content-type']).toBe('application/json');
    expect(open).toMatchObject({
      routing_key: ROUTING_KEY,
      dedup_key: `statusbot-${id}`,
      payload: { summary: 'API down', source: 'Acme API', severity: 'critical' },
      client_url: `http://status.test/incidents/${id}`,
    });
    expect(update).toMatchObject({
      dedup_key: `statusbot-${id}`,
      payload: { severity: 'critical', custom_details: { update: 'Fix rolling out <now> & soon' } },
    });
    expect(resolve).toEqual({ routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: `statusbot-${id}` });
  });

  it('an incident opened from chat reaches every destination as one from the API does', async () => {
    const s = await start();
    const acme = await authenticate(s.ctx, ACME_KEY);
    const fromChat = s.ctx.actingAs({ actor: 'slack:T0123ABCD/U0123ABCD', requestId: null });
    const incident = await createIncident(fromChat, acme, { service_id: 1001, title: 'Opened in Slack', status: 'major' });
    await waitUntil(() => allSent(s, 4));
    expect(pagerduty.received[0]!.json).toMatchObject({
      event_action: 'trigger',
      dedup_key: `statusbot-${incident.id}`,
      payload: { summary: 'Opened in Slack' },
    });
    expect(opsgenie.received[0]!.json.alias).toBe(`statusbot-${incident.id}`);
    expect(teams.received).toHaveLength(1);
    expect(telegram.messages).toHaveLength(1);
  });

  it('a minor incident is a PagerDuty warning and an Opsgenie P3', async () => {
    const s = await start();
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Slow', status: 'minor' } });
    await waitUntil(() => allSent(s, 4));
    expect(pagerduty.received[0]!.json.payload.severity).toBe('warning');
    expect(opsgenie.received[0]!.json.priority).toBe('P3');
  });

  it('Opsgenie gets an alert created, a note, then the alert closed, by alias and with the GenieKey', async () => {
    const s = await start();
    const id = await lifecycle(s, 'major');
    await waitUntil(() => allSent(s, 12));
    const alias = `statusbot-${id}`;
    expect(opsgenie.received.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /v2/alerts',
      `POST /v2/alerts/${alias}/notes?identifierType=alias`,
      `POST /v2/alerts/${alias}/close?identifierType=alias`,
    ]);
    for (const call of opsgenie.received) expect(call.headers.authorization).toBe(`GenieKey ${GENIE_KEY}`);
    expect(opsgenie.received[0]!.json).toMatchObject({ message: 'API down', alias, priority: 'P1' });
    expect(opsgenie.received[0]!.json.description).toContain('Requests fail.');
    expect(opsgenie.received[1]!.json.note).toBe('Identified: Fix rolling out <now> & soon');
    expect(opsgenie.received[2]!.json.note).toBe('Resolved: All good again.');
  });

  it('Teams gets an Adaptive Card per change, with title, status, service, the update and links', async () => {
    const s = await start();
    const id = await lifecycle(s, 'major');
    await waitUntil(() => allSent(s, 12));
    expect(teams.received).toHaveLength(3);
    expect(teams.received[0]!.path).toBe(`/workflows/abc/triggers/manual/paths/invoke?api-version=1&sig=${SIG}`);
    const message = teams.received[1]!.json;
    expect(message.type).toBe('message');
    expect(message.attachments).toHaveLength(1);
    const [attachment] = message.attachments;
    expect(attachment.contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = attachment.content;
    expect(card.type).toBe('AdaptiveCard');
    expect(Number(card.version)).toBeGreaterThanOrEqual(1.4);
    const texts = card.body.filter((b: any) => b.type === 'TextBlock').map((b: any) => b.text);
    expect(texts).toContain('API down');
    expect(texts).toContain('Fix rolling out <now> & soon');
    const facts = card.body.find((b: any) => b.type === 'FactSet').facts;
    expect(facts).toEqual([
      { title: 'Status', value: 'Identified · major' },
      { title: 'Service', value: 'Acme API' },
    ]);
    expect(card.actions.map((a: any) => a.url)).toEqual([`http://status.test/incidents/${id}`, 'https://status.acme.example']);
    const last = teams.received[2]!.json.attachments[0].content;
    expect(last.body.find((b: any) => b.type === 'FactSet').facts[0].value).toBe('Resolved');
  });

  it('Telegram gets the incident as an HTML message, then each change as a reply to it', async () => {
    const s = await start();
    const id = await lifecycle(s, 'major', 'API <down> & "out"');
    await waitUntil(() => allSent(s, 12));
    expect(telegram.messages).toHaveLength(3);
    const [first, update, resolved] = telegram.messages;
    expect(first!.chatId).toBe(CHAT);
    expect(first!.replyTo).toBeNull();
    expect(update!.replyTo).toBe(first!.id);
    expect(resolved!.replyTo).toBe(first!.id);
    expect(telegram.received[0]!.json.parse_mode).toBe('HTML');
    expect(first!.text).toContain('API &lt;down&gt; &amp; &quot;out&quot;');
    expect(first!.text).toContain(`<a href="http://status.test/incidents/${id}">`);
    expect(update!.text).toContain('Fix rolling out &lt;now&gt; &amp; soon');
    expect(update!.text).not.toContain('<now>');
    expect(resolved!.text).toContain('Resolved');
  });

  it('a custom monitor that goes down pages every destination under its own key, and its recovery resolves the alert', async () => {
    const s = await start({
      monitors: `    custom_monitors:
      - { id: 604, name: Nightly backup, probe_type: heartbeat, interval_seconds: 86400, grace_seconds: 3600 }
`,
    });
    // An incident first, so that a monitor incident's id meets an incident's: their alerts stay apart.
    const incident = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'API down', status: 'major' } });
    await waitUntil(() => allSent(s, 4));
    const monitor = (await s.api('GET', '/api/v2/custom_monitors')).body.data.find((m: any) => m.id === '604').attributes;
    const ping = (query = '') => fetch(`${monitor.push_url.replace('http://status.test', s.url)}${query}`, { method: 'POST' });
    expect((await ping('?status=down&msg=disk%20full')).status).toBe(204);
    await waitUntil(() => allSent(s, 8), { what: 'the monitor paged' });
    const [monitorIncident] = (await s.api('GET', '/api/v2/custom_monitors/604/incidents')).body.data;
    const key = `statusbot-monitor-incident-${monitorIncident.id}`;
    expect(key).not.toBe(`statusbot-${incident.body.data.id}`);
    expect(pagerduty.received[1]!.json).toMatchObject({
      event_action: 'trigger',
      dedup_key: key,
      payload: { summary: 'Nightly backup is down', source: 'Nightly backup', severity: 'critical' },
    });
    expect(pagerduty.received[1]!.json.payload.custom_details.description).toContain('disk full');
    expect(opsgenie.received[1]!.json).toMatchObject({ message: 'Nightly backup is down', alias: key, priority: 'P1', entity: 'Nightly backup' });
    const card = teams.received[1]!.json.attachments[0].content;
    expect(card.body.map((b: any) => b.text).filter(Boolean)).toEqual(expect.arrayContaining(['Monitor down', 'Nightly backup is down']));
    expect(card.body.find((b: any) => b.type === 'FactSet').facts).toEqual([
      { title: 'Status', value: 'Down' },
      { title: 'Monitor', value: 'Nightly backup' },
    ]);
    expect(telegram.messages[1]!.text).toContain('Monitor down: Nightly backup is down');
    // A new thread: not a reply to the incident's message.
    expect(telegram.messages[1]!.replyTo).toBeNull();

    expect((await ping()).status).toBe(204);
    await waitUntil(() => allSent(s, 12), { what: 'the recovery told' });
    expect(pagerduty.received[2]!.json).toEqual({ routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: key });
    expect(`${opsgenie.received[2]!.method} ${opsgenie.received[2]!.path}`).toBe(`POST /v2/alerts/${key}/close?identifierType=alias`);
    expect(opsgenie.received[2]!.json.note).toMatch(/^Resolved: Up again in /);
    expect(telegram.messages[2]!.replyTo).toBe(telegram.messages[1]!.id);
    expect(telegram.messages[2]!.text).toContain('Recovered');
  });

  it('a 5xx is tried again and the notification delivered once; a destination that keeps failing holds back no other', async () => {
    const s = await start();
    pagerduty.failNext(2, { status: 503, body: { status: 'unavailable' } });
    teams.failNext(1_000, { status: 500, body: { error: 'down' } });
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Down', status: 'major' } });
    await waitUntil(async () => (await rows(s)).filter((r) => r.state === 'sent').length === 3, { what: 'all but Teams delivered' });
    expect(pagerduty.requests).toHaveLength(3);
    expect(pagerduty.received).toHaveLength(1);
    expect(opsgenie.received).toHaveLength(1);
    expect(telegram.messages).toHaveLength(1);
    const byStream = Object.fromEntries((await rows(s)).map((r) => [r.stream.split(':')[0], r]));
    expect(byStream.pagerduty!.attempts).toBe(2);
    await waitUntil(async () => ((await rows(s)).find((r) => r.stream.startsWith('teams:'))?.attempts ?? 0) >= 2);
    const failing = (await rows(s)).find((r) => r.stream.startsWith('teams:'))!;
    expect(failing.state).toBe('pending');
    expect(failing.last_error).toContain('HTTP 500');
    // The webhook's signature is a secret: the error shows the address without its query.
    expect(failing.last_error).not.toContain(SIG);
  });

  it('Telegram waits the retry_after of a 429, which is not a failed attempt', async () => {
    const s = await start();
    telegram.failNext(1, telegram.tooManyRequests(1));
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Down' } });
    await waitUntil(() => allSent(s, 4));
    expect(telegram.requests).toHaveLength(2);
    expect(telegram.messages).toHaveLength(1);
    expect(telegram.requests[1]!.at - telegram.requests[0]!.at).toBeGreaterThanOrEqual(950);
    const row = (await rows(s)).find((r) => r.stream.startsWith('telegram:'))!;
    expect(row.attempts).toBe(0);
  });

  it('a Telegram message already posted is not posted again when its row is retried, and later ones reply to it', async () => {
    // A delivery that posted and recorded the message, then stopped before its row was marked sent.
    const quiet = await start({ delivery: { enabled: false } });
    const created = await quiet.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Down' } });
    const id = Number(created.body.data.id);
    await quiet.ctx.db
      .updateTable('outbox')
      .set({ progress: JSON.stringify({ message: '4242' }), attempts: 1 })
      .where('stream', 'like', 'telegram:%')
      .execute();
    await quiet.stop();
    servers.splice(0);

    const s = await start();
    await waitUntil(() => allSent(s, 4));
    expect(telegram.requests).toHaveLength(0);
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description: 'Mitigated', resolution_stage: 'monitoring' } });
    await waitUntil(() => allSent(s, 8));
    expect(telegram.messages).toHaveLength(1);
    expect(telegram.messages[0]!.replyTo).toBe(4242);
  });

  it('a refused key dead-letters at once, and no secret shows in the error', async () => {
    const s = await start();
    await s.ctx.db
      .updateTable('notify_destinations')
      .set({ settings: JSON.stringify({ bot_token: '999:WRONGTOKEN', chat_id: CHAT, api_url: telegram.url }) })
      .where('kind', '=', 'telegram')
      .execute();
    await s.ctx.db
      .updateTable('notify_destinations')
      .set({ settings: JSON.stringify({ api_key: 'wrong-genie-key', url: opsgenie.url }) })
      .where('kind', '=', 'opsgenie')
      .execute();
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Down' } });
    await waitUntil(async () => (await rows(s)).filter((r) => r.state === 'dead').length === 2);
    const dead = (await rows(s)).filter((r) => r.state === 'dead');
    expect(dead.map((r) => r.attempts)).toEqual([1, 1]);
    const errors = dead.map((r) => r.last_error ?? '').join('\n');
    expect(errors).toContain('HTTP 401');
    expect(errors).toContain('/bot…/sendMessage');
    expect(errors).not.toContain('WRONGTOKEN');
    expect(errors).not.toContain('wrong-genie-key');
  });

  it('the private-target guard applies to destinations as to webhooks', async () => {
    const s = await start({ extra: 'probes: { block_private_targets: true }' });
    await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Down' } });
    await waitUntil(async () => (await rows(s)).every((r) => (r.last_error ?? '').includes('blocked')), { what: 'every delivery refused by the guard' });
    expect(pagerduty.requests.length + opsgenie.requests.length + teams.requests.length + telegram.requests.length).toBe(0);
  });
});
