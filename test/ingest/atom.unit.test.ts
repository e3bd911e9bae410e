import { describe, expect, it } from 'vitest';
import { atom } from '../../src/ingest/atom.js';
import type { VendorIncident } from '../../src/ingest/vendor-snapshot.js';
import { NOW } from './fixtures.js';

function read(xml: string): VendorIncident[] {
  const snapshot = atom.parse([xml], { url: 'https://status.redis.com/history.atom', now: NOW });
  expect(snapshot.indicator).toBeNull();
  return snapshot.incidents;
}

// status.redis.com/history.atom (Statuspage), as captured in a public test suite; the second entry's
// latest label changed from Resolved to Monitoring to have an open incident.
const REDIS = `<?xml version="1.0" encoding="UTF-8"?>
<feed xml:lang="en-US" xmlns="http://www.w3.org/2005/Atom">
  <id>tag:status.redis.com,2005:/history</id>
  <link rel="alternate" type="text/html" href="https://status.redis.com"/>
  <link rel="self" type="application/atom+xml" href="https://status.redis.com/history.atom"/>
  <title>Redis Status - Incident History</title>
  <updated>2021-12-26T15:23:56Z</updated>
  <author>
    <name>Redis</name>
  </author>
  <entry>
    <id>tag:status.redis.com,2005:Incident/8938651</id>
    <published>2021-12-26T14:45:23Z</published>
    <updated>2021-12-26T14:45:23Z</updated>
    <link rel="alternate" type="text/html" href="https://status.redis.com/incidents/q5bb6tbftgrm"/>
    <title>Instance failure</title>
    <content type="html">&lt;p&gt;&lt;small&gt;Dec &lt;var data-var='date'&gt;26&lt;/var&gt;, &lt;var data-var='time'&gt;14:45&lt;/var&gt; UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;Resolved&lt;/strong&gt; - This incident has been resolved.&lt;/p&gt;&lt;p&gt;&lt;small&gt;Dec &lt;var data-var='date'&gt;26&lt;/var&gt;, &lt;var data-var='time'&gt;14:38&lt;/var&gt; UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;Investigating&lt;/strong&gt; - We are experiencing instance failure on GCP/us-east1 , this may affect resources that have the following pattern in their endpoint: c16307.us-east1-mz&lt;/p&gt;</content><summary type="html">&lt;p&gt;&lt;small&gt;Dec &lt;var data-var='date'&gt;26&lt;/var&gt;, &lt;var data-var='time'&gt;14:45&lt;/var&gt; UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;Resolved&lt;/strong&gt; - This incident has been resolved.&lt;/p&gt;</summary>
  </entry>
  <entry>
    <id>tag:status.redis.com,2005:Incident/8899527</id>
    <published>2021-12-21T01:01:14Z</published>
    <updated>2021-12-21T01:37:14Z</updated>
    <link rel="alternate" type="text/html" href="https://status.redis.com/incidents/1t2rmcmnp7wd"/>
    <title>Scheduled Maintenance</title>
    <content type="html">&lt;p&gt;&lt;small&gt;Dec &lt;var data-var='date'&gt;21&lt;/var&gt;, &lt;var data-var='time'&gt;01:37&lt;/var&gt; UTC&lt;/small&gt;&lt;br&gt;&lt;strong&gt;Monitoring&lt;/strong&gt; - Service maintenance on AWS/us-west-2 applies to all resources with the following pattern in their endpoint : c2638.us-west-2-mz&lt;/p&gt;</content>
  </entry>
</feed>
`;

describe('atom reader', () => {
  it('fetches the feed address itself', () => {
    expect(atom.documents('https://status.redis.com/history.atom')).toEqual(['https://status.redis.com/history.atom']);
  });

  it('reads a resolved Statuspage history entry field by field', () => {
    const incident = read(REDIS).find((i) => i.id === 'tag:status.redis.com,2005:Incident/8938651')!;
    expect(incident).toMatchObject({
      title: 'Instance failure',
      severity: 'minor',
      severityFromProvider: null,
      url: 'https://status.redis.com/incidents/q5bb6tbftgrm',
      components: [],
      createdAt: new Date('2021-12-26T14:38:00Z'),
      updatedAt: new Date('2021-12-26T14:45:00Z'),
      resolved: true,
      resolvedAt: new Date('2021-12-26T14:45:00Z'),
      description: 'This incident has been resolved.',
    });
    expect(incident.updates).toEqual([
      {
        stage: 'investigating',
        description:
          'We are experiencing instance failure on GCP/us-east1 , this may affect resources that have the following pattern in their endpoint: c16307.us-east1-mz',
        createdAt: new Date('2021-12-26T14:38:00Z'),
      },
      { stage: 'resolved', description: 'This incident has been resolved.', createdAt: new Date('2021-12-26T14:45:00Z') },
    ]);
  });

  it('reads an open entry from the stages its text lists, not from published/updated', () => {
    const incident = read(REDIS).find((i) => i.id === 'tag:status.redis.com,2005:Incident/8899527')!;
    expect(incident).toMatchObject({
      title: 'Scheduled Maintenance',
      resolved: false,
      resolvedAt: null,
      createdAt: new Date('2021-12-21T01:37:00Z'),
      updatedAt: new Date('2021-12-21T01:37:00Z'),
    });
    expect(incident.updates).toEqual([{ stage: 'monitoring', description: incident.description, createdAt: new Date('2021-12-21T01:37:00Z') }]);
  });

  it('reads inline XHTML, HTML titles, the summary without content, and prefers the alternate link', () => {
    const [incident] = read(`<feed xmlns="http://www.w3.org/2005/Atom">
      <entry>
        <id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
        <updated>2026-08-01T10:00:00+02:00</updated>
        <link rel="self" href="https://status.example.com/entry/1.atom"/>
        <link href="https://status.example.com/entry/1"/>
        <title type="html">[Resolved] R&amp;amp;D &lt;em&gt;portal&lt;/em&gt; errors</title>
        <summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Body <em>text</em> and<br/>more &amp; more</p></div></summary>
      </entry>
    </feed>`);
    expect(incident).toMatchObject({
      id: 'urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a',
      title: 'R&D portal errors',
      url: 'https://status.example.com/entry/1',
      description: 'Body text and more & more',
      resolved: true,
      createdAt: new Date('2026-08-01T08:00:00Z'),
      severityFromProvider: 'Resolved',
    });
  });

  it.each([
    ['<p><strong>Resolved</strong> - Fixed.</p><p><strong>Investigating</strong> - Looking.</p>', true, 'resolved'],
    ['<p><strong>Completed</strong> - The scheduled maintenance has been completed.</p>', true, 'resolved'],
    ['<p><strong>Update</strong> - Still on it.</p><p><strong>Identified</strong> - Found it.</p>', false, 'identified'],
    ['<p><strong>Verifying</strong> - Checking.</p><p><strong>In progress</strong> - Started.</p>', false, 'investigating'],
    ['<p>Our <strong>Resolved</strong> - tracker is down.</p>', false, 'investigating'],
  ])('reads the history labels of %j without time stamps', (html, resolved, stage) => {
    const escaped = html.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
    const [incident] = read(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>e1</id><updated>2026-09-03T12:56:26Z</updated>
      <title>Elevated errors</title><content type="html">${escaped}</content></entry></feed>`);
    expect([incident!.resolved, incident!.updates[0]!.stage]).toEqual([resolved, stage]);
  });

  it('refuses an RSS feed', () => {
    expect(() => read('<rss version="2.0"><channel></channel></rss>')).toThrow(/Atom feed: root element <rss>, expected <feed>/);
  });
});
