import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSmtp } from '../fakes/fake-smtp.js';
import type { FakeSmtp, ReceivedMail } from '../fakes/fake-smtp.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const FAST = { enabled: true, baseDelayMs: 20, maxDelayMs: 200, pollMs: 20 } as const;
const config = (smtpUrl: string) => `
public_url: http://status.test
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

/** On a fresh database: an incident opened, then updated; the two mails its subscriber receives. */
async function incidentMails(): Promise<{ incidentId: string; opened: ReceivedMail; updated: ReceivedMail }> {
  const t = await startTestServer({ config: config(smtp.url), delivery: FAST });
  servers.push(t);
  const sent = smtp.received.length;
  const created = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'API down', status: 'major' } });
  expect(created.status).toBe(201);
  await waitUntil(() => smtp.received.length === sent + 1, { what: 'the mail of the new incident' });
  await t.api('PATCH', `/api/v2/incidents/${created.body.data.id}`, { body: { resolution_stage: 'identified', description: 'A bad deploy.' } });
  await waitUntil(() => smtp.received.length === sent + 2, { what: 'the mail of its update' });
  const [opened, updated] = smtp.received.slice(sent) as [ReceivedMail, ReceivedMail];
  return { incidentId: created.body.data.id, opened, updated };
}

describe('the Message-IDs of subscribers’ mail', () => {
  it('differ between two databases for the same incident id, and an update’s mail still replies to its incident’s first', async () => {
    const first = await incidentMails();
    const second = await incidentMails();
    // Both databases are new: their first incident has the same id.
    expect(second.incidentId).toBe(first.incidentId);

    for (const { opened, updated } of [first, second]) {
      const id = opened.headers.get('message-id')!;
      expect(id).toMatch(/^<[^<>@\s]+@status\.test>$/);
      expect(updated.headers.get('message-id')).not.toBe(id);
      expect(updated.headers.get('in-reply-to')).toBe(id);
      expect(updated.headers.get('references')).toBe(id);
    }
    const ids = [first, second].flatMap((m) => [m.opened, m.updated].map((mail) => mail.headers.get('message-id')));
    expect(new Set(ids).size).toBe(4);
  });
});
