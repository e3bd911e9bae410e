import { describe, expect, it } from 'vitest';
import { atom } from '../../src/ingest/atom.js';
import type { VendorIncident } from '../../src/ingest/vendor-snapshot.js';
import { fixture, NOW } from './fixtures.js';

// GitHub's Statuspage history.atom as saved once a day by a public repository (see rss-atom/SOURCES.md).
function read(name: string): VendorIncident[] {
  const snapshot = atom.parse([fixture(`rss-atom/${name}`)], { url: 'https://www.githubstatus.com/history.atom', now: NOW });
  expect(snapshot.skipped).toEqual([]);
  return snapshot.incidents;
}

const ID = 'tag:www.githubstatus.com,2005:Incident/29855242';

describe('atom reader on GitHub history.atom read on three days', () => {
  const [first] = read('statuspage-github-history-2026-04-29.atom');
  const [second] = read('statuspage-github-history-2026-04-30.atom');
  const [third] = read('statuspage-github-history-2026-05-01.atom');

  it('shows the incident open since its first stage, not since the item was last published', () => {
    expect(first).toMatchObject({
      id: ID,
      title: 'Incomplete pull request results in repositories',
      url: 'https://www.githubstatus.com/incidents/x69zbgdyfzg0',
      resolved: false,
      resolvedAt: null,
      createdAt: new Date('2026-04-28T14:17:00Z'),
      updatedAt: new Date('2026-04-29T00:40:00Z'),
    });
    expect(first!.updates).toHaveLength(6);
    expect(first!.updates.every((u) => u.stage === 'investigating')).toBe(true);
  });

  it('grows the timeline as the item grows, keeping the stages already read in their places', () => {
    expect(second!.updates).toHaveLength(8);
    expect(second!.updates.slice(0, 6)).toEqual(first!.updates);
    expect(second!.updatedAt).toEqual(new Date('2026-04-30T03:49:00Z'));
    expect(third!.updates.slice(0, 8)).toEqual(second!.updates);
    expect(third!.updates.map((u) => u.createdAt.toISOString().slice(0, 16))).toEqual([
      '2026-04-28T14:17',
      '2026-04-28T14:51',
      '2026-04-28T15:58',
      '2026-04-28T21:43',
      '2026-04-28T22:46',
      '2026-04-29T00:40',
      '2026-04-29T22:22',
      '2026-04-30T03:49',
      '2026-05-01T04:11',
      '2026-05-01T04:15',
    ]);
  });

  it('resolves it at its Resolved update, having lasted about two and a half days', () => {
    expect(third).toMatchObject({
      resolved: true,
      createdAt: new Date('2026-04-28T14:17:00Z'),
      resolvedAt: new Date('2026-05-01T04:15:00Z'),
      updatedAt: new Date('2026-05-01T04:15:00Z'),
    });
    expect(third!.updates.at(-1)).toMatchObject({ stage: 'resolved', description: expect.stringMatching(/^This incident has been resolved\./) });
  });
});

describe('atom reader on a day of GitHub history.atom', () => {
  const incidents = read('statuspage-github-history-2025-10-04.atom');
  const byId = (n: number): VendorIncident => incidents.find((i) => i.id === `tag:www.githubstatus.com,2005:Incident/${n}`)!;

  it('reads its seven entries as seven resolved incidents, each with all its stages', () => {
    expect(incidents.map((i) => [i.title, i.resolved, i.updates.length])).toEqual([
      ['Incident with Copilot', true, 5],
      ['Degraded Gemini 2.5 Pro experience in Copilot', true, 8],
      ['Degraded Performance for GitHub Actions MacOS Runners', true, 15],
      ['Disruption with Gemini 2.5 Pro and Gemini 2.0 Flash in Copilot', true, 4],
      ['Disruption with some GitHub services', true, 3],
      ['Disruption with some GitHub services', true, 3],
      ['Disruption with some GitHub services', true, 3],
    ]);
  });

  it('reads an incident that ran over two days from its first stage to its resolution', () => {
    expect(byId(26615316)).toMatchObject({
      createdAt: new Date('2025-10-01T16:43:00Z'),
      resolvedAt: new Date('2025-10-02T22:33:00Z'),
      updatedAt: new Date('2025-10-02T22:33:00Z'),
    });
  });

  it('keeps an Update and a Resolved posted in the same minute in the page order', () => {
    // "Oct 3, 03:47 Resolved" above "Oct 3, 03:47 Update": the update came first.
    expect(
      byId(26633369)
        .updates.slice(-2)
        .map((u) => [u.stage, u.createdAt.toISOString()]),
    ).toEqual([
      ['investigating', '2025-10-03T03:47:00.000Z'],
      ['resolved', '2025-10-03T03:47:00.000Z'],
    ]);
  });

  it('times a resolved incident by its stamps even when the entry was edited days later', () => {
    // Published Sep 25 17:36 (the Resolved update), updated Sep 29 22:28 (the text was amended).
    expect(byId(26554560)).toMatchObject({
      createdAt: new Date('2025-09-25T17:00:00Z'),
      resolvedAt: new Date('2025-09-25T17:36:00Z'),
      updatedAt: new Date('2025-09-25T17:36:00Z'),
    });
    expect(byId(26554560).description).toMatch(/^On September 26, 2025 between 16:22 UTC and 18:32 UTC raw file access was degraded/);
  });
});
