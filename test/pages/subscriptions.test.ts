import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load-config.js';
import { startServer } from '../../src/main.js';
import { SUBSCRIBE_PER_MINUTE } from '../../src/http/pages/subscription-routes.js';
import { startFakeSmtp } from '../fakes/fake-smtp.js';
import type { FakeSmtp, ReceivedMail } from '../fakes/fake-smtp.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { ACME_KEY, T0, startTestServer } from '../helpers/test-server.js';
import type { TestServer, TestServerOptions } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { manualClock } from '../../src/domain/clock.js';
import { recordingLogger } from '../helpers/loggers.js';

const PUBLIC_URL = 'http://status.test';
const PAGE = '/status/acme';
const FAST = { enabled: true, baseDelayMs: 20, maxDelayMs: 200, pollMs: 20 } as const;

const config = (smtpUrl: string | null) => `
public_url: ${PUBLIC_URL}
${smtpUrl ? `smtp: { url: "${smtpUrl}", from: "Acme status <status@acme.example>" }` : ''}
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    status_pages:
      - name: Acme status
        slug: acme
        services: [acme-api, acme-web]
        subscribers:
          - { email: "ops@acme.example" }
`;

let smtp: FakeSmtp;
const servers: TestServer[] = [];
beforeEach(async () => {
  smtp = await startFakeSmtp();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  await smtp.close();
});

async function start(delivery: TestServerOptions['delivery'] = FAST, smtpUrl: string | null = smtp.url): Promise<TestServer> {
  const s = await startTestServer({ config: config(smtpUrl), delivery });
  servers.push(s);
  return s;
}

/** A form POST as a browser sends it; redirects are not followed. */
function post(t: { url: string }, path: string, form: Record<string, string | string[]>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
  return fetch(`${t.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: body.toString(),
  });
}

const subscribeForm = (t: { url: string }, email: string, services: string[] = []) => post(t, `${PAGE}/subscribe`, { email, service: services });

/** A link of a mail, pointed at the test server instead of the page's public address. */
const local = (t: TestServer, link: string): string => link.replace(PUBLIC_URL, t.url);

const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));
const linkIn = (mail: ReceivedMail, path: string): string => {
  const match = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}${PAGE}${path}\\?token=[A-Za-z0-9._-]+`).exec(mail.text ?? '');
  if (!match) throw new Error(`no ${path} link in: ${mail.text}`);
  return match[0];
};
const unsubscribeLinkOf = (mail: ReceivedMail): string => /^<([^>]+)>$/.exec(mail.headers.get('list-unsubscribe') ?? '')![1]!;

async function emailRows(t: TestServer) {
  return t.ctx.db.selectFrom('email_subscribers').select(['id', 'email', 'state', 'origin', 'services']).orderBy('id').execute();
}
async function mailOutbox(t: TestServer) {
  return t.ctx.db.selectFrom('outbox').selectAll().where('stream', 'like', 'email:%').orderBy('id').execute();
}
/** Every mail row delivered (sent), none under way or waiting. */
async function mailSettled(t: TestServer, count: number): Promise<boolean> {
  const rows = await mailOutbox(t);
  return rows.length === count && rows.every((r) => r.state === 'sent');
}

async function subscribeAndConfirm(t: TestServer, email: string, services: string[] = []): Promise<void> {
  expect((await subscribeForm(t, email, services)).status).toBe(303);
  await waitUntil(() => mailsTo(email).length === 1, { what: `the confirmation to ${email}` });
  const res = await fetch(local(t, linkIn(mailsTo(email)[0]!, '/subscribe/confirm')));
  expect(res.status).toBe(200);
}

describe('signing up for a status page by email', () => {
  it('answers the same 303 for a new, a pending and a confirmed address, and mails only the new one', async () => {
    const t = await start();
    const answers = [];
    for (const email of ['new@example.com', 'NEW@example.com ', 'ops@acme.example']) {
      const res = await subscribeForm(t, email);
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        // Only the date and the request's own id differ.
        if (name !== 'date' && name !== 'x-request-id') headers[name] = value;
      });
      answers.push({ status: res.status, headers, body: await res.text() });
    }
    expect(answers[0]).toMatchObject({ status: 303, headers: { location: `${PAGE}/subscribe/check-inbox` } });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);

    const inbox = await fetch(`${t.url}${PAGE}/subscribe/check-inbox`);
    expect(inbox.status).toBe(200);
    expect(await inbox.text()).toContain('Check your inbox');

    await waitUntil(() => mailSettled(t, 1), { what: 'the confirmation to be sent' });
    expect(smtp.received.map((m) => m.to)).toEqual([['new@example.com']]);
    const [confirmation] = smtp.received;
    expect(confirmation!.subject).toBe('Confirm your subscription to Acme status');
    expect(confirmation!.headers.get('from')).toBe('Acme status <status@acme.example>');
    expect(confirmation!.text).toContain(`${PUBLIC_URL}${PAGE}/subscribe/confirm?token=`);
    expect(confirmation!.html).toContain(`${PUBLIC_URL}${PAGE}/subscribe/confirm?token=`);
    expect(confirmation!.headers.get('list-unsubscribe')).toMatch(new RegExp(`^<${PUBLIC_URL}${PAGE}/unsubscribe\\?token=[^>]+>$`));
    expect(confirmation!.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');

    expect(await emailRows(t)).toEqual([
      expect.objectContaining({ email: 'ops@acme.example', state: 'confirmed', origin: 'config' }),
      expect.objectContaining({ email: 'new@example.com', state: 'pending', origin: 'form', services: null }),
    ]);
  });

  it('refuses an address that is not one with a 400 page, stores nothing; an unknown page is 404', async () => {
    const t = await start();
    const before = await emailRows(t);
    for (const email of ['not-an-address', '']) {
      const res = await subscribeForm(t, email);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toMatch(/email (must be an email address|must not be blank)/);
    }
    const missing = await post(t, `${PAGE}/subscribe`, {});
    expect(missing.status).toBe(400);
    const unknownService = await subscribeForm(t, 'someone@example.com', ['not-on-this-page']);
    expect(unknownService.status).toBe(400);
    expect(await unknownService.text()).toContain('not-on-this-page is not a service of this page');
    expect((await post(t, '/status/nope/subscribe', { email: 'someone@example.com' })).status).toBe(404);
    expect(await emailRows(t)).toEqual(before);
    expect(await mailOutbox(t)).toEqual([]);
  });

  it(`allows ${SUBSCRIBE_PER_MINUTE} sign-ups a minute from one address, then answers 429 with Retry-After`, async () => {
    const t = await start({ enabled: false });
    for (let i = 0; i < SUBSCRIBE_PER_MINUTE; i++) {
      expect((await subscribeForm(t, `reader${i}@example.com`)).status).toBe(303);
    }
    const limited = await subscribeForm(t, 'one-too-many@example.com');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await emailRows(t)).map((r) => r.email)).not.toContain('one-too-many@example.com');
    t.clock.advance(60_000);
    expect((await subscribeForm(t, 'later@example.com')).status).toBe(303);
  });

  it('confirms by the link of the confirmation mail; an incident then mails each confirmed subscriber once', async () => {
    const t = await start();
    await subscribeAndConfirm(t, 'api-only@example.com', ['acme-api']);
    await subscribeAndConfirm(t, 'web-only@example.com', ['acme-web']);
    expect((await subscribeForm(t, 'pending@example.com')).status).toBe(303);
    await waitUntil(() => mailSettled(t, 3), { what: 'the confirmations' });
    expect(await emailRows(t)).toEqual([
      expect.objectContaining({ email: 'ops@acme.example', state: 'confirmed', services: null }),
      expect.objectContaining({ email: 'api-only@example.com', state: 'confirmed', services: '[1001]' }),
      expect.objectContaining({ email: 'web-only@example.com', state: 'confirmed', services: '[1002]' }),
      expect.objectContaining({ email: 'pending@example.com', state: 'pending' }),
    ]);
    // Following the link again changes nothing and still says so.
    const again = await fetch(local(t, linkIn(mailsTo('api-only@example.com')[0]!, '/subscribe/confirm')));
    expect(again.status).toBe(200);
    smtp.received.length = 0;

    const title = 'Database <b>down</b> & "slow"';
    const created = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title } });
    expect(created.status).toBe(201);
    await waitUntil(() => mailSettled(t, 5), { what: 'the incident mails' });

    expect(smtp.received.map((m) => m.to[0]).sort()).toEqual(['api-only@example.com', 'ops@acme.example']);
    for (const mail of smtp.received) {
      expect(mail.subject).toBe(`[Acme status] New incident - Acme API: ${title}`);
      expect(mail.text).toContain(`Acme API: ${title}`);
      expect(mail.html).toContain('Acme API: Database &lt;b>down&lt;/b> &amp; &quot;slow&quot;');
      expect(mail.html).not.toContain('<b>down</b>');
      expect(mail.headers.get('list-unsubscribe')).toMatch(new RegExp(`^<${PUBLIC_URL}${PAGE}/unsubscribe\\?token=[^>]+>$`));
      expect(mail.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      expect(mail.text).toContain(unsubscribeLinkOf(mail));
    }
  });

  it('unsubscribes with one POST on the List-Unsubscribe link (RFC 8058); GET shows a button that POSTs', async () => {
    const t = await start();
    await subscribeAndConfirm(t, 'reader@example.com');
    await t.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: 'Slow pages' } });
    await waitUntil(() => mailsTo('ops@acme.example').length === 1 && mailsTo('reader@example.com').length === 2, { what: 'the first incident mails' });
    const link = unsubscribeLinkOf(mailsTo('ops@acme.example')[0]!);

    const page = await fetch(local(t, link));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('ops@acme.example');
    const token = new URL(link).searchParams.get('token')!;
    expect(html).toContain(`<form method="post" action="${PAGE}/unsubscribe?token=${encodeURIComponent(token)}">`);
    expect(await emailRows(t)).toHaveLength(2);

    const path = new URL(link).pathname + new URL(link).search;
    const oneClick = await post(t, path, { 'List-Unsubscribe': 'One-Click' });
    expect(oneClick.status).toBe(200);
    expect(await oneClick.text()).toContain('no more mail');
    expect((await emailRows(t)).map((r) => r.email)).toEqual(['reader@example.com']);
    // Once more: nothing left to do, still fine.
    expect((await post(t, path, { 'List-Unsubscribe': 'One-Click' })).status).toBe(200);
    expect(await (await fetch(local(t, link))).text()).toContain('You are not subscribed');

    const before = smtp.received.length;
    await t.api('POST', '/api/v2/incidents', { body: { service_id: 1002, title: 'Slow again' } });
    await waitUntil(() => mailsTo('reader@example.com').length === 3, { what: 'the second incident mail' });
    await waitUntil(async () => (await mailOutbox(t)).every((r) => r.state === 'sent'), { what: 'all mail sent' });
    expect(smtp.received.slice(before).map((m) => m.to[0])).toEqual(['reader@example.com']);
    expect(mailsTo('ops@acme.example')).toHaveLength(1);
  });

  it('refuses altered and forged links with 4xx and an expired confirmation with 410; nothing changes', async () => {
    const t = await start();
    expect((await subscribeForm(t, 'late@example.com')).status).toBe(303);
    await waitUntil(() => mailsTo('late@example.com').length === 1, { what: 'the confirmation' });
    const confirmLink = linkIn(mailsTo('late@example.com')[0]!, '/subscribe/confirm');
    const unsubscribeLink = unsubscribeLinkOf(mailsTo('late@example.com')[0]!);
    const rows = await emailRows(t);

    const token = new URL(confirmLink).searchParams.get('token')!;
    const [purpose, id, expiry, mac] = token.split('.') as [string, string, string, string];
    const flip = (c: string) => (c === 'A' ? 'B' : 'A');
    const forgeries = [
      `${purpose}.${id}.${expiry}.${flip(mac[0]!)}${mac.slice(1)}`,
      `${purpose}.${id}.${expiry}.${mac.slice(0, -1)}${flip(mac.at(-1)!)}`,
      `${purpose}.${id}.${(parseInt(expiry, 36) + 3600).toString(36)}.${mac}`,
      `${purpose}.${Number(id) - 1}.${expiry}.${mac}`,
      `unsubscribe.${id}.${expiry}.${mac}`,
      token.slice(0, -5),
      '',
    ];
    for (const forged of forgeries) {
      const confirm = await fetch(`${t.url}${PAGE}/subscribe/confirm?token=${encodeURIComponent(forged)}`);
      expect(confirm.status, forged).toBe(400);
      expect(await confirm.text()).toContain('This link is not valid');
      const oneClick = await post(t, `${PAGE}/unsubscribe?token=${encodeURIComponent(forged)}`, { 'List-Unsubscribe': 'One-Click' });
      expect(oneClick.status, forged).toBe(400);
    }
    // A confirmation link does not unsubscribe, nor the reverse.
    expect((await post(t, `${PAGE}/unsubscribe?token=${encodeURIComponent(token)}`, {})).status).toBe(400);
    expect((await fetch(`${local(t, unsubscribeLink).replace('/unsubscribe?', '/subscribe/confirm?')}`)).status).toBe(400);
    expect(await emailRows(t)).toEqual(rows);

    t.clock.advance(48 * 60 * 60_000 + 1_000);
    const expired = await fetch(local(t, confirmLink));
    expect(expired.status).toBe(410);
    const body = await expired.text();
    expect(body).toContain('This link has expired');
    expect(body).toContain('Subscribe again');
    expect(await emailRows(t)).toEqual(rows);
  });

  it('keeps mail while the SMTP server is down, without using up its attempts, and sends it once it is back', async () => {
    const t = await start({ ...FAST, maxAttempts: 2 });
    await smtp.stop();
    await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Outage during outage' } });
    // Tried and failed many more times than maxAttempts, yet neither counted nor dead.
    const tries = new Set<number>();
    await waitUntil(
      async () => {
        const [row] = await mailOutbox(t);
        expect(row).toMatchObject({ state: 'pending', attempts: 0 });
        if (row?.last_error) tries.add(row.next_attempt_at);
        return tries.size >= 4;
      },
      { what: 'several failed tries' },
    );
    expect((await mailOutbox(t))[0]!.last_error).toMatch(/cannot be reached/);

    await smtp.start();
    await waitUntil(() => mailSettled(t, 1), { what: 'the mail after the outage' });
    expect(smtp.received.map((m) => [m.to[0], m.subject])).toEqual([['ops@acme.example', '[Acme status] New incident - Acme API: Outage during outage']]);
    expect(await t.ctx.db.selectFrom('outbox').select('id').where('state', '=', 'dead').execute()).toEqual([]);
  });

  it('counts a mail the server refuses as a failed attempt (dead after maxAttempts)', async () => {
    const t = await start({ ...FAST, maxAttempts: 2 });
    smtp.refuseNext(2, 550);
    await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Refused' } });
    await waitUntil(async () => (await mailOutbox(t))[0]?.state === 'dead', { what: 'the refused mail to be dead' });
    expect((await mailOutbox(t))[0]).toMatchObject({ attempts: 2 });
    expect((await mailOutbox(t))[0]!.last_error).toMatch(/refused/);
    expect(smtp.received).toEqual([]);
  });

  it('without smtp: the form still works, mail waits in the outbox, and the start says so', async () => {
    const database = await createTestDatabase();
    const log = recordingLogger();
    const server = await startServer({
      dbPath: database.path,
      port: 0,
      host: '127.0.0.1',
      config: parseConfig('test.yml', config(null)).config,
      clock: manualClock(T0),
      logger: log,
      env: {},
      delivery: FAST,
      jobs: false,
    });
    try {
      expect(log.records.some((r) => /email subscribers, but no smtp is configured/.test(r.message))).toBe(true);
      expect((await subscribeForm(server, 'waiting@example.com')).status).toBe(303);
      await server.worker.drain();
      const rows = await server.ctx.db.selectFrom('outbox').select(['stream', 'state', 'attempts']).execute();
      expect(rows).toEqual([expect.objectContaining({ state: 'pending', attempts: 0 })]);
    } finally {
      await server.close();
      await database.drop();
    }
  });

  it('stops the start on a wrong smtp setting, naming it', () => {
    expect(() => parseConfig('bad.yml', `smtp: { url: "http://mail.example", from: "status@acme.example" }\n`)).toThrow(ConfigError);
    expect(() => parseConfig('bad.yml', `smtp: { url: "http://mail.example", from: "status@acme.example" }\n`)).toThrow(
      /bad\.yml:1:\d+: .*smtp\.url must be an smtp:\/\/ or smtps:\/\/ URL/,
    );
    expect(() => parseConfig('bad.yml', `smtp: { url: "smtp://127.0.0.1:2525", from: "nobody" }\n`)).toThrow(/smtp\.from/);
  });
});
