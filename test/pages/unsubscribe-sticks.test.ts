import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { startFakeSmtp } from '../fakes/fake-smtp.js';
import type { FakeSmtp, ReceivedMail } from '../fakes/fake-smtp.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const PUBLIC_URL = 'http://status.test';

const config = (smtpUrl: string) => `public_url: ${PUBLIC_URL}
smtp: { url: "${smtpUrl}", from: "Acme status <status@acme.example>" }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    status_pages:
      - name: Acme status
        slug: acme
        services: [acme-api]
        subscribers:
          - { email: "ops@acme.example" }
          - { email: "Oncall@acme.example" }
`;

let smtp: FakeSmtp;
let t: TestServer;
let dir: string;
let file: string;
beforeEach(async () => {
  smtp = await startFakeSmtp();
  dir = mkdtempSync(join(tmpdir(), 'statusbot-unsubscribe-'));
  file = join(dir, 'statusbot.yml');
  writeFileSync(file, config(smtp.url));
  t = await startTestServer({ config: config(smtp.url), delivery: { enabled: true, baseDelayMs: 20, maxDelayMs: 200, pollMs: 20 } });
});
afterEach(async () => {
  await t.stop();
  await smtp.close();
  rmSync(dir, { recursive: true, force: true });
});

const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));
const local = (link: string): string => link.replace(PUBLIC_URL, t.url);
const unsubscribeLinkOf = (mail: ReceivedMail): string => /^<([^>]+)>$/.exec(mail.headers.get('list-unsubscribe') ?? '')![1]!;
const apply = () => runCli(['apply', '--config', file, '--db', t.dbPath], { cwd: dir });
const incident = async (title: string) => expect((await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title } })).status).toBe(201);
async function allMailSent(): Promise<boolean> {
  const rows = await t.ctx.db.selectFrom('outbox').select('state').where('stream', 'like', 'email:%').execute();
  return rows.every((r) => r.state === 'sent');
}

describe('an address from the config that unsubscribed through its mail', () => {
  it('is not signed up again by the next apply, which reports its entry as suppressed', async () => {
    await incident('First outage');
    const first = await waitUntil(() => mailsTo('ops@acme.example')[0], { what: 'the first mail to ops' });
    await waitUntil(() => mailsTo('oncall@acme.example').length === 1, { what: 'the first mail to oncall' });
    const link = unsubscribeLinkOf(first);
    const oneClick = await fetch(local(link), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);

    const applied = await apply();
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toBe(
      `applied ${file}: no changes\n` +
        `subscriber suppressed: ops@acme.example on Acme status unsubscribed through a mail's link (${file}:14:13); remove the entry, or the address signs up again on the page\n`,
    );
    // Applied again: still suppressed, still no change.
    expect((await apply()).stdout).toContain('subscriber suppressed: ops@acme.example');

    await incident('Second outage');
    await waitUntil(() => mailsTo('oncall@acme.example').length === 2, { what: 'the second mail to oncall' });
    await waitUntil(allMailSent, { what: 'every mail sent' });
    expect(mailsTo('ops@acme.example')).toHaveLength(1);
    expect((await t.ctx.db.selectFrom('email_subscribers').select('email').execute()).map((r) => r.email)).toEqual(['oncall@acme.example']);
  });

  it('counts again once the address signs up on the page and confirms', async () => {
    await incident('First outage');
    const first = await waitUntil(() => mailsTo('ops@acme.example')[0], { what: 'the first mail to ops' });
    const unsubscribe = new URL(unsubscribeLinkOf(first));
    await fetch(local(unsubscribe.href), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect((await apply()).stdout).toContain('subscriber suppressed: ops@acme.example');

    const signUp = await fetch(`${t.url}/status/acme/subscribe`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=ops%40acme.example',
    });
    expect(signUp.status).toBe(303);
    const confirmation = await waitUntil(() => mailsTo('ops@acme.example').find((m) => m.subject.startsWith('Confirm')), { what: 'the confirmation' });
    const confirm = new RegExp(`${PUBLIC_URL}/status/acme/subscribe/confirm\\?token=[A-Za-z0-9._-]+`).exec(confirmation.text ?? '')![0];
    expect((await fetch(local(confirm))).status).toBe(200);

    const applied = await apply();
    expect(applied.stdout).not.toContain('suppressed');
    await incident('Second outage');
    await waitUntil(() => mailsTo('ops@acme.example').some((m) => m.subject.includes('Second outage')), { what: 'the second mail to ops' });
  });
});
