import { describe, expect, it } from 'vitest';
import { rss } from '../../src/ingest/rss.js';
import type { VendorIncident } from '../../src/ingest/vendor-snapshot.js';
import { fixture, NOW } from './fixtures.js';

const AWS = 'https://status.aws.amazon.com/#';

function read(xml: string): VendorIncident[] {
  const snapshot = rss.parse([xml], { url: 'https://status.example.com/history.rss', now: NOW });
  expect(snapshot.indicator).toBeNull();
  expect(snapshot.components).toEqual([]);
  expect(snapshot.maintenances).toEqual([]);
  return snapshot.incidents;
}

function channel(items: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Status</title>${items}</channel></rss>`;
}

function item(fields: { title: string; guid?: string; link?: string; pubDate?: string; description?: string }): string {
  return [
    '<item>',
    `<title><![CDATA[${fields.title}]]></title>`,
    fields.link === undefined ? '' : `<link>${fields.link}</link>`,
    fields.pubDate === undefined ? '' : `<pubDate>${fields.pubDate}</pubDate>`,
    fields.guid === undefined ? '' : `<guid isPermaLink="false">${fields.guid}</guid>`,
    fields.description === undefined ? '' : `<description><![CDATA[${fields.description}]]></description>`,
    '</item>',
  ].join('');
}

describe('rss reader on the AWS Health Dashboard fixture', () => {
  const incidents = read(fixture('aws-status.rss'));
  const byId = (id: string): VendorIncident => incidents.find((i) => i.id === `${AWS}${id}`)!;

  it('reads its 50 items as 3 events, grouped by guid without the pubDate suffix', () => {
    expect(incidents.map((i) => [i.id, i.updates.length])).toEqual([
      [`${AWS}directconnect-eu-central-1_1786765379`, 20],
      [`${AWS}multipleservices-me-central-1_1772396043`, 17],
      [`${AWS}multipleservices-me-south-1_1772430987`, 13],
    ]);
  });

  it('resolves exactly the item "Service is operating normally: [RESOLVED] Increased Packet loss"', () => {
    const resolvedUpdates = incidents.flatMap((i) => i.updates.filter((u) => u.stage === 'resolved').map((u) => [i.id, u.createdAt]));
    expect(resolvedUpdates).toEqual([[`${AWS}directconnect-eu-central-1_1786765379`, new Date('2026-08-18T04:01:19Z')]]);
  });

  it('does not resolve "Service impact: Increased Packet loss" items, even those saying "fully recovered"', () => {
    const directConnect = byId('directconnect-eu-central-1_1786765379');
    // Mon, 17 Aug 2026 10:59:20 PDT: "most of the connections are fully recovered and stable".
    const recovering = directConnect.updates.find((u) => u.createdAt.getTime() === Date.parse('2026-08-17T17:59:20Z'))!;
    expect(recovering.description).toContain('most of the connections are fully recovered and stable');
    expect(recovering.stage).toBe('investigating');
    // Mon, 17 Aug 2026 18:50:12 PDT: "not yet fully recovered".
    expect(directConnect.updates[18]!.description).toContain('not yet fully recovered');
    expect(directConnect.updates[18]!.stage).toBe('investigating');
  });

  it('reads the resolved Direct Connect event field by field', () => {
    const incident = byId('directconnect-eu-central-1_1786765379');
    expect(incident).toMatchObject({
      title: 'Increased Packet loss',
      severity: 'minor',
      severityFromProvider: 'Service impact',
      url: 'https://status.aws.amazon.com/',
      components: [],
      createdAt: new Date('2026-08-15T03:42:59Z'),
      updatedAt: new Date('2026-08-18T04:01:19Z'),
      resolved: true,
      resolvedAt: new Date('2026-08-18T04:01:19Z'),
    });
    expect(incident.description).toMatch(/^Starting August 14 7:33 PM PDT, we experienced increased packet loss/);
    expect(incident.description).toMatch(/through the AWS Management Console or the AWS Support Center\.$/);
    expect(incident.description).not.toMatch(/[<>\n]|\s{2}/);
    expect(incident.updates[0]!.description).toMatch(/^We are investigating increased packet loss, impacting AWS Direct Connect/);
    expect(incident.updates.slice(0, 19).every((u) => u.stage === 'investigating')).toBe(true);
  });

  it('reads the open Middle East events as major service disruptions', () => {
    expect(byId('multipleservices-me-central-1_1772396043')).toMatchObject({
      title: 'Increased Error Rates',
      severity: 'major',
      severityFromProvider: 'Service disruption',
      createdAt: new Date('2026-03-01T20:14:03Z'),
      updatedAt: new Date('2026-04-30T07:25:54Z'),
      resolved: false,
      resolvedAt: null,
    });
    // Mostly "Service impact" items; its latest is a "Service disruption" and the title's capitals changed on the way.
    expect(byId('multipleservices-me-south-1_1772430987')).toMatchObject({
      title: 'Increased Connectivity Issues and API Error Rates',
      severity: 'major',
      severityFromProvider: 'Service disruption',
      resolved: false,
    });
  });
});

describe('rss reader rules', () => {
  const aws = (at: string, title: string): string =>
    item({
      title,
      guid: `${AWS}ec2-us-east-1_${Date.parse(at) / 1000}`,
      link: 'https://status.aws.amazon.com/',
      pubDate: new Date(at).toUTCString(),
      description: title,
    });

  it('starts a new event after a resolved item under the same guid key', () => {
    const incidents = read(
      channel(
        [
          aws('2026-05-02T10:00:00Z', 'Service impact: Increased latency'),
          aws('2026-05-01T12:00:00Z', 'Service is operating normally: [RESOLVED] Increased API errors'),
          aws('2026-05-01T10:00:00Z', 'Informational message: Increased API errors'),
        ].join(''),
      ),
    );
    expect(incidents.map((i) => [i.id, i.title, i.resolved, i.updates.length, i.severityFromProvider])).toEqual([
      [`${AWS}ec2-us-east-1_1777716000`, 'Increased latency', false, 1, 'Service impact'],
      [`${AWS}ec2-us-east-1_1777629600`, 'Increased API errors', true, 2, 'Informational message'],
    ]);
  });

  it('reopens an ended event when a later item repeats its guid', () => {
    const incidents = read(
      channel(
        [
          item({ title: 'Update: Errors are back', guid: 'g1', pubDate: 'Tue, 03 Jun 2025 11:00:00 +0000' }),
          item({ title: 'Resolved: Errors', guid: 'g1', pubDate: 'Tue, 03 Jun 2025 10:00:00 +0000' }),
          item({ title: 'Errors', guid: 'g1', pubDate: 'Tue, 03 Jun 2025 09:00:00 +0000' }),
        ].join(''),
      ),
    );
    expect(incidents.map((i) => [i.id, i.title, i.resolved, i.updates.map((u) => u.stage)])).toEqual([
      ['g1', 'Errors are back', false, ['investigating', 'resolved', 'investigating']],
    ]);
  });

  it('keeps one incident per item when a numeric suffix is not the item time', () => {
    const incidents = read(
      channel(
        [
          item({ title: 'API errors', guid: 'https://status.example.com/incident_1001', pubDate: 'Tue, 03 Jun 2025 09:00:00 +0000' }),
          item({ title: 'API errors', guid: 'https://status.example.com/incident_1002', pubDate: 'Tue, 03 Jun 2025 10:00:00 +0000' }),
        ].join(''),
      ),
    );
    expect(incidents.map((i) => i.id)).toEqual(['https://status.example.com/incident_1002', 'https://status.example.com/incident_1001']);
  });

  it.each([
    ['[RESOLVED] Elevated errors', 'Elevated errors', true, 'minor', 'RESOLVED'],
    ['Resolved: Elevated errors', 'Elevated errors', true, 'minor', 'Resolved'],
    ['[Informational] Console slowness', 'Console slowness', false, 'minor', 'Informational'],
    ['Service disruption: Increased Error Rates', 'Increased Error Rates', false, 'major', 'Service disruption'],
    ['Major outage of the API', 'Major outage of the API', false, 'major', null],
    ['[RESOLVED] Major outage of the API', 'Major outage of the API', true, 'minor', 'RESOLVED'],
    ['GitHub Actions: delayed runs', 'GitHub Actions: delayed runs', false, 'minor', null],
    ['[EU] Slow builds', '[EU] Slow builds', false, 'minor', null],
  ])('reads the title %j', (title, stripped, resolved, severity, word) => {
    const [incident] = read(channel(item({ title, guid: 'g1', pubDate: 'Tue, 03 Jun 2025 09:00:00 +0000', description: 'We are looking into it.' })));
    expect([incident!.title, incident!.resolved, incident!.severity, incident!.severityFromProvider]).toEqual([stripped, resolved, severity, word]);
  });

  it('does not resolve on words in the text, only on a history label', () => {
    const [incident] = read(
      channel(
        item({
          title: 'Incident with API Requests',
          guid: 'g1',
          description: 'API Requests is operating normally. The issue has been resolved for most users.',
        }),
      ),
    );
    expect(incident!.resolved).toBe(false);
  });

  // Trimmed from githubstatus.com/history.rss (Statuspage), as captured in a public test suite.
  const history = (latest: string): string =>
    channel(`<item>
      <title>Incident with GitHub Actions, Codespaces, Issues, and Webhooks</title>
      <description>
&lt;p&gt;&lt;small&gt;Mar &lt;var data-var=&apos;date&apos;&gt;16&lt;/var&gt;, &lt;var data-var=&apos;time&apos;&gt;19:46&lt;/var&gt; UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;${latest}&lt;/strong&gt; - This incident has been resolved.&lt;/p&gt;&lt;p&gt;&lt;small&gt;Mar &lt;var data-var=&apos;date&apos;&gt;16&lt;/var&gt;, &lt;var data-var=&apos;time&apos;&gt;18:57&lt;/var&gt; UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;Update&lt;/strong&gt; - Webhooks is operating normally.&lt;/p&gt;&lt;p&gt;&lt;small&gt;Mar &lt;var data-var=&apos;date&apos;&gt;16&lt;/var&gt;, &lt;var data-var=&apos;time&apos;&gt;18:20&lt;/var&gt; UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;Identified&lt;/strong&gt; - We found it.&lt;/p&gt;</description>
      <pubDate>Wed, 16 Mar 2022 17:49:37 +0000</pubDate>
      <link>https://www.githubstatus.com/incidents/l2cmwpsm2zjh</link>
      <guid>https://www.githubstatus.com/incidents/l2cmwpsm2zjh</guid>
    </item>`);

  it('reads a Statuspage history item as its dated updates, oldest first, resolved at the Resolved one', () => {
    const [incident] = read(history('Resolved'));
    expect(incident).toMatchObject({
      id: 'https://www.githubstatus.com/incidents/l2cmwpsm2zjh',
      title: 'Incident with GitHub Actions, Codespaces, Issues, and Webhooks',
      url: 'https://www.githubstatus.com/incidents/l2cmwpsm2zjh',
      resolved: true,
      createdAt: new Date('2022-03-16T18:20:00Z'),
      updatedAt: new Date('2022-03-16T19:46:00Z'),
      resolvedAt: new Date('2022-03-16T19:46:00Z'),
      description: 'This incident has been resolved.',
      severityFromProvider: null,
    });
    // "Webhooks is operating normally." is an Update: it keeps the stage before it.
    expect(incident!.updates).toEqual([
      { stage: 'identified', description: 'We found it.', createdAt: new Date('2022-03-16T18:20:00Z') },
      { stage: 'identified', description: 'Webhooks is operating normally.', createdAt: new Date('2022-03-16T18:57:00Z') },
      { stage: 'resolved', description: 'This incident has been resolved.', createdAt: new Date('2022-03-16T19:46:00Z') },
    ]);
  });

  it('reads the stage of an open history item from its latest stage label', () => {
    const [incident] = read(history('Update'));
    expect(incident!.resolved).toBe(false);
    expect(incident!.updates.map((u) => u.stage)).toEqual(['identified', 'identified', 'identified']);
  });

  it('takes the link as the id without a guid, and the read time without a date, saying it is undated', () => {
    const [incident] = read(channel(item({ title: 'Slow builds', link: 'https://status.example.com/i/1' })));
    expect(incident).toMatchObject({
      id: 'https://status.example.com/i/1',
      url: 'https://status.example.com/i/1',
      createdAt: NOW,
      updatedAt: NOW,
      undated: true,
    });
  });

  it('decodes entities and drops markup in titles and texts', () => {
    const [incident] = read(
      channel(
        `<item><guid>g</guid><title>Errors in R&amp;D &#8212; EU</title><description>&lt;p&gt;We&amp;rsquo;re &lt;b&gt;looking&lt;/b&gt;&amp;nbsp;into   it &amp;amp; more&lt;/p&gt;</description></item>`,
      ),
    );
    expect(incident!.title).toBe('Errors in R&D — EU');
    expect(incident!.description).toBe('We’re looking into it & more');
  });

  it('reads a feed without items as no incidents', () => {
    expect(read(channel(''))).toEqual([]);
  });
});
