import { describe, expect, it } from 'vitest';
import { rss } from '../../src/ingest/rss.js';
import type { VendorIncident } from '../../src/ingest/vendor-snapshot.js';
import { fixture, NOW } from './fixtures.js';

// Parse's Statuspage history.rss (see rss-atom/SOURCES.md): each item's text is the incident's
// whole timeline, stamped in the page's zone ("PST" all year round), newest first.
const snapshot = rss.parse([fixture('rss-atom/statuspage-parse-history.rss')], { url: 'https://status.parse.com/history.rss', now: NOW });
const byId = (id: string): VendorIncident => snapshot.incidents.find((i) => i.id === `http://status.parse.com/incidents/${id}`)!;

describe('rss reader on a Statuspage history.rss (Parse)', () => {
  it('reads every item, all of them resolved, none left out', () => {
    expect(snapshot.skipped).toEqual([]);
    expect(snapshot.incidents).toHaveLength(17);
    expect(snapshot.incidents.every((i) => i.resolved && i.resolvedAt !== null && i.undated === undefined)).toBe(true);
  });

  it('shows an incident from its first stage to its resolution, each stage at its own time', () => {
    // Jan 1, 08:17 PST Investigating → 09:00 Identified → 09:09 Resolved, as the page lists them.
    const incident = byId('lzf7mjchpy20');
    expect(incident).toMatchObject({
      title: 'Elevated error rates',
      createdAt: new Date('2014-01-01T16:17:00Z'),
      resolvedAt: new Date('2014-01-01T17:09:00Z'),
      updatedAt: new Date('2014-01-01T17:09:00Z'),
      description: 'We have restored the system to its normal level of operation.',
    });
    expect(incident.updates).toEqual([
      {
        stage: 'investigating',
        description: 'We are currently investigating an issue with elevated error rates.',
        createdAt: new Date('2014-01-01T16:17:00Z'),
      },
      {
        stage: 'identified',
        description: 'We have identified the source of the elevated error rates and are working to restore normal capacity.',
        createdAt: new Date('2014-01-01T17:00:00Z'),
      },
      { stage: 'resolved', description: 'We have restored the system to its normal level of operation.', createdAt: new Date('2014-01-01T17:09:00Z') },
    ]);
  });

  it('reads "PST" in October at the offset the item is dated in (-0700), as the page meant it', () => {
    // `Oct 28, 14:48 PST Resolved`, and the item's pubDate `Mon, 28 Oct 2013 14:48:00 -0700`.
    const incident = byId('gtdv7rgyn76g');
    expect([incident.createdAt, incident.resolvedAt]).toEqual([new Date('2013-10-28T21:43:00Z'), new Date('2013-10-28T21:48:00Z')]);
  });

  it('keeps an Update at the stage before it and lasts as long as the page says', () => {
    // Dec 29: 08:04 Identified, 09:57 Update, 12:20 Resolved.
    const incident = byId('x7yb1mmd4721');
    expect(incident.updates.map((u) => [u.stage, u.createdAt.toISOString()])).toEqual([
      ['identified', '2013-12-29T16:04:00.000Z'],
      ['identified', '2013-12-29T17:57:00.000Z'],
      ['resolved', '2013-12-29T20:20:00.000Z'],
    ]);
    expect(incident.resolvedAt!.getTime() - incident.createdAt.getTime()).toBe((4 * 60 + 16) * 60_000);
  });

  it('resolves at the Resolved update, not at the postmortem posted two days later', () => {
    const incident = byId('p9hy357zjvb3');
    expect(incident).toMatchObject({
      title: 'Elevated error rates and latency',
      createdAt: new Date('2013-12-24T16:58:00Z'),
      resolvedAt: new Date('2013-12-24T19:21:00Z'),
      updatedAt: new Date('2013-12-26T18:22:00Z'),
    });
    expect(incident.updates.map((u) => u.stage)).toEqual(['investigating', 'resolved', 'resolved']);
    expect(incident.description).toMatch(/^# Summary of the December 24 Parse Service Disruption/);
  });

  it('reads a single-stage incident as one update at its stamp', () => {
    expect(byId('q9dns8zcgptk')).toMatchObject({
      createdAt: new Date('2013-12-20T14:30:00Z'),
      resolvedAt: new Date('2013-12-20T14:30:00Z'),
      updates: [{ stage: 'resolved', createdAt: new Date('2013-12-20T14:30:00Z') }],
    });
  });
});
