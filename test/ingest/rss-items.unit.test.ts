import { describe, expect, it } from 'vitest';
import { atom } from '../../src/ingest/atom.js';
import { rss } from '../../src/ingest/rss.js';
import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { NOW } from './fixtures.js';

// Hand-written edges of the item rules (rss.ts). The shapes of xAI's items follow the report of
// status.x.ai/feed.xml: resolution only in the text ("Status: RESOLVED") and in <category>, one item per component.

function read(items: string, now = NOW): VendorSnapshot {
  return rss.parse([`<?xml version="1.0"?><rss version="2.0"><channel><title>Status</title>${items}</channel></rss>`], {
    url: 'https://status.example.com/feed.xml',
    now,
  });
}

function item(fields: { title?: string; guid?: string; link?: string; pubDate?: string; description?: string; categories?: string[] }): string {
  return [
    '<item>',
    fields.title === undefined ? '' : `<title>${fields.title}</title>`,
    fields.link === undefined ? '' : `<link>${fields.link}</link>`,
    fields.pubDate === undefined ? '' : `<pubDate>${fields.pubDate}</pubDate>`,
    fields.guid === undefined ? '' : `<guid isPermaLink="false">${fields.guid}</guid>`,
    fields.description === undefined ? '' : `<description><![CDATA[${fields.description}]]></description>`,
    ...(fields.categories ?? []).map((c) => `<category>${c}</category>`),
    '</item>',
  ].join('');
}

const DATE = 'Thu, 19 Feb 2026 16:38:24 GMT';

describe('resolution from the text and categories', () => {
  it.each([
    ['a status field in the text', { description: '<p>API errors for some users.</p><p>Status: RESOLVED</p>' }],
    ['a Resolved category', { description: 'API errors for some users.', categories: ['API', 'Resolved'] }],
    ['a Completed category', { description: 'Maintenance window.', categories: ['completed'] }],
    ['a leading RESOLVED label', { description: '<strong>RESOLVED</strong> - <p>This incident has been resolved.</p>' }],
  ])('resolves on %s', (_what, fields) => {
    const [incident] = read(item({ title: 'API errors', guid: 'g1', pubDate: DATE, ...fields })).incidents;
    expect(incident).toMatchObject({ resolved: true, resolvedAt: new Date('2026-02-19T16:38:24Z') });
    expect(incident!.updates.map((u) => u.stage)).toEqual(['resolved']);
  });

  it.each([
    'API Requests is operating normally. The issue has been resolved for most users.',
    'Most of the connections are fully recovered and stable.',
    'We will update the status when resolved.',
  ])('does not resolve on words in prose: %j', (description) => {
    const [incident] = read(item({ title: 'API errors', guid: 'g1', pubDate: DATE, description })).incidents;
    expect([incident!.resolved, incident!.resolvedAt]).toEqual([false, null]);
  });

  it('reads the stage of an open item from its status field or category', () => {
    const incidents = read(
      [
        item({ title: 'Slow API', guid: 'a', pubDate: DATE, description: 'Status: Monitoring' }),
        item({ title: 'Slow console', guid: 'b', pubDate: DATE, categories: ['Console', 'Identified'] }),
      ].join(''),
    ).incidents;
    expect(incidents.map((i) => [i.title, i.resolved, i.updates[0]!.stage])).toEqual([
      ['Slow API', false, 'monitoring'],
      ['Slow console', false, 'identified'],
    ]);
  });

  it('lets the newest history label decide over a category: a reopened incident is open', () => {
    const [incident] = read(
      item({ title: 'API errors', guid: 'g1', pubDate: DATE, categories: ['Resolved'], description: 'Investigating - Errors are back. Resolved - Fixed.' }),
    ).incidents;
    expect(incident!.resolved).toBe(false);
  });
});

describe('one incident per guid', () => {
  it('reads an incident repeated once per component as one incident with one update', () => {
    const components = ['API', 'Console', 'Grok (Web)', 'Grok (iOS)', 'Grok (Android)', 'Grok in X', 'Voice', 'Images'];
    const items = components.map((component) =>
      item({
        title: 'Models outage',
        guid: 'https://status.x.ai/incidents/abc',
        link: 'https://status.x.ai/incidents/abc',
        pubDate: DATE,
        description: 'Status: RESOLVED',
        categories: [component, 'Resolved'],
      }),
    );
    const { incidents } = read(items.join(''));
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ id: 'https://status.x.ai/incidents/abc', resolved: true, createdAt: new Date('2026-02-19T16:38:24Z') });
    expect(incidents[0]!.updates).toHaveLength(1);
  });

  it('keeps the items of one guid that say something new as its updates', () => {
    const { incidents } = read(
      [
        item({ title: 'Models outage', guid: 'g1', pubDate: 'Thu, 19 Feb 2026 17:00:00 GMT', description: 'Status: RESOLVED' }),
        item({ title: 'Models outage', guid: 'g1', pubDate: 'Thu, 19 Feb 2026 16:00:00 GMT', description: 'We are looking into it.' }),
        item({ title: 'Models outage', guid: 'g1', pubDate: 'Thu, 19 Feb 2026 16:00:00 GMT', description: 'We are looking into it.' }),
      ].join(''),
    );
    expect(incidents).toHaveLength(1);
    expect(incidents[0]!.updates.map((u) => [u.stage, u.createdAt.toISOString()])).toEqual([
      ['investigating', '2026-02-19T16:00:00.000Z'],
      ['resolved', '2026-02-19T17:00:00.000Z'],
    ]);
  });
});

describe('items without a date', () => {
  const undated = item({ title: 'Slow builds', guid: 'g1', description: 'We are looking into it.' });

  it('are marked undated, and two reads differ only in the read time', () => {
    const [first] = read(undated, NOW).incidents;
    const [second] = read(undated, new Date(NOW.getTime() + 60_000)).incidents;
    expect(first).toMatchObject({ undated: true, createdAt: NOW, updatedAt: NOW });
    const content = (i: typeof first) => ({ ...i!, createdAt: null, updatedAt: null, updates: i!.updates.map((u) => ({ ...u, createdAt: null })) });
    expect(content(second)).toEqual(content(first));
  });

  it('count an unreadable date as none', () => {
    const [incident] = read(item({ title: 'Slow builds', guid: 'g1', pubDate: 'yesterday' })).incidents;
    expect(incident).toMatchObject({ undated: true, createdAt: NOW });
  });

  it('leave dated incidents unmarked', () => {
    const [incident] = read(item({ title: 'Slow builds', guid: 'g1', pubDate: DATE })).incidents;
    expect(incident!.undated).toBeUndefined();
  });
});

describe('items the reader cannot use', () => {
  it('are left out and named, and the rest of the feed is read', () => {
    const snapshot = read(
      [
        item({ title: 'API errors', guid: 'a', pubDate: DATE }),
        item({ pubDate: DATE, description: 'An item with nothing to know it by.' }),
        item({ title: 'Console errors', guid: 'b', pubDate: DATE }),
      ].join(''),
    );
    expect(snapshot.incidents.map((i) => i.title)).toEqual(['API errors', 'Console errors']);
    expect(snapshot.skipped).toEqual(['item 2: no guid, link or title']);
  });

  it('are named as entries in an Atom feed', () => {
    const snapshot = atom.parse(
      ['<feed xmlns="http://www.w3.org/2005/Atom"><entry><updated>2026-02-19T16:38:24Z</updated></entry><entry><id>e2</id><title>Slow</title></entry></feed>'],
      { url: 'https://status.example.com/history.atom', now: NOW },
    );
    expect(snapshot.incidents.map((i) => i.id)).toEqual(['e2']);
    expect(snapshot.skipped).toEqual(['entry 1: no guid, link or title']);
  });
});

describe('history time stamps', () => {
  const history = (pubDate: string, text: string) => read(item({ title: 'Errors', guid: 'g1', pubDate, description: text })).incidents[0]!;

  it('puts a December stamp on a January item in the year before', () => {
    const incident = history(
      'Fri, 02 Jan 2026 00:31:00 +0000',
      '<p><small>Jan 1, 00:30 UTC</small><br><strong>Resolved</strong> - Fixed.</p><p><small>Dec 31, 23:50 UTC</small><br><strong>Investigating</strong> - Looking.</p>',
    );
    expect([incident.createdAt, incident.resolvedAt]).toEqual([new Date('2025-12-31T23:50:00Z'), new Date('2026-01-01T00:30:00Z')]);
  });

  it('reads a named zone when the item date is written in UTC', () => {
    const incident = history('Tue, 03 Jun 2025 17:00:00 +0000', '<p><small>Jun 3, 10:00 PDT</small><br><strong>Investigating</strong> - Looking.</p>');
    expect(incident.createdAt).toEqual(new Date('2025-06-03T17:00:00Z'));
  });

  it('reads the item as one update when a stamp cannot be timed', () => {
    const text = '<p><small>Jun 3, 10:00 IST</small><br><strong>Investigating</strong> - Looking.</p>';
    const incident = history('Tue, 03 Jun 2025 17:00:00 +0000', text);
    expect(incident.updates).toEqual([
      { stage: 'investigating', description: 'Jun 3, 10:00 IST Investigating - Looking.', createdAt: new Date('2025-06-03T17:00:00Z') },
    ]);
    expect(history('Tue, 03 Jun 2025 17:00:00 +0000', text.replace('Jun 3', 'Feb 30')).updates).toHaveLength(1);
  });
});

describe('what a feed without a resolution marker cannot say', () => {
  // Slack's feed (slack-status.com/feed/atom), in the shape other projects' tests quote it: the title is
  // `Incident: …` and the resolution is only prose. No rule can read it, so it stays open: Slack is
  // read through its status API instead.
  it('keeps a Slack-shaped entry open although its text says it is resolved', () => {
    const snapshot = atom.parse(
      [
        `<feed xmlns="http://www.w3.org/2005/Atom"><entry>
        <id>https://slack-status.com/2026-01/6f029c99f2b77bcd</id>
        <published>2026-01-30T07:52:19-08:00</published>
        <updated>2026-02-02T09:53:54-08:00</updated>
        <title>Incident: Trouble connecting to Salesforce Channels</title>
        <content type="html">&lt;p&gt;&lt;small&gt;3:23pm PST&lt;/small&gt; We are aware of an issue.&lt;/p&gt;&lt;p&gt;&lt;small&gt;9:34am PST&lt;/small&gt; This issue is now resolved.&lt;/p&gt;</content>
      </entry></feed>`,
      ],
      { url: 'https://slack-status.com/feed/atom', now: NOW },
    );
    expect(snapshot.incidents.map((i) => [i.title, i.resolved, i.updates.length, i.createdAt.toISOString()])).toEqual([
      ['Incident: Trouble connecting to Salesforce Channels', false, 1, '2026-01-30T15:52:19.000Z'],
    ]);
  });
});
