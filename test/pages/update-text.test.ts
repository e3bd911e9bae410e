import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSmtp } from '../fakes/fake-smtp.js';
import type { FakeSmtp } from '../fakes/fake-smtp.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

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

const TEXT = [
  'Payments fail for some cards. See https://acme.example/help.',
  'We are on it.',
  '',
  'Affected:',
  '- **checkout**',
  '- the <word> API & "webhooks"',
  '',
  '<script>alert(1)</script> javascript:alert(1)',
].join('\n');

/** What TEXT becomes, the same wherever it is shown as HTML. */
const EXPECTED_HTML =
  '<p>Payments fail for some cards. See <a href="https://acme.example/help">https://acme.example/help</a>.<br/>We are on it.</p>' +
  '<p>Affected:</p><ul><li><strong>checkout</strong></li><li>the &lt;word> API &amp; &quot;webhooks&quot;</li></ul>' +
  '<p>&lt;script>alert(1)&lt;/script> javascript:alert(1)</p>';

describe('update text with paragraphs, lists, bold and links, the same on the page, in mail and in feeds', () => {
  let t: TestServer;
  let smtp: FakeSmtp;
  let incidentId: string;
  beforeAll(async () => {
    smtp = await startFakeSmtp();
    t = await startTestServer({ config: config(smtp.url), delivery: { enabled: true, baseDelayMs: 20, maxDelayMs: 200, pollMs: 20 } });
    const created = await t.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Card payments', description: TEXT, status: 'minor' } });
    expect(created.status).toBe(201);
    incidentId = created.body.data.id;
  });
  afterAll(async () => {
    await t.stop();
    await smtp.close();
  });

  it('on the status page and the incident page', async () => {
    for (const path of ['/status/acme', `/status/acme/incidents/${incidentId}`]) {
      const html = await (await fetch(`${t.url}${path}`)).text();
      expect(html).toContain(EXPECTED_HTML);
      expect(html).not.toContain('<script>');
    }
  });

  it('in the mail: the text part as written, the HTML part rendered', async () => {
    const mail = await waitUntil(() => smtp.received.find((m) => m.to.includes('ops@acme.example') && m.subject.includes('Card payments')), {
      what: 'the incident mail',
    });
    expect(mail.text?.replace(/\r\n/g, '\n')).toContain(TEXT);
    expect(mail.html).toContain(EXPECTED_HTML);
  });

  it('in RSS as escaped HTML, in Atom as type="html": a reader decoding either gets the same HTML', async () => {
    const parser = new XMLParser({ ignoreAttributes: false, processEntities: true, htmlEntities: false });
    const rss = await (await fetch(`${t.url}/status/acme/feed.rss`)).text();
    expect(XMLValidator.validate(rss)).toBe(true);
    // Escaped once: a reader that takes the description as HTML gets the markup, and `<word>` stays text in it.
    expect(rss).toContain('&lt;li&gt;the &amp;lt;word&gt; API');
    const item = parser.parse(rss).rss.channel.item;
    expect(item.description).toBe(EXPECTED_HTML);

    const atom = await (await fetch(`${t.url}/status/acme/feed.atom`)).text();
    expect(XMLValidator.validate(atom)).toBe(true);
    const entry = parser.parse(atom).feed.entry;
    expect(entry.content['@_type']).toBe('html');
    expect(entry.content['#text']).toBe(EXPECTED_HTML);
  });
});
