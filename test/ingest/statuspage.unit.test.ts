import { describe, expect, it } from 'vitest';
import { statuspage } from '../../src/ingest/statuspage.js';
import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { fixture, fixtureJson, NOW } from './fixtures.js';

const PAGE = 'https://www.githubstatus.com';
type Json = Record<string, unknown>;

function read(summary: Json, incidents: Json): VendorSnapshot {
  return statuspage.parse([JSON.stringify(summary), JSON.stringify(incidents)], { url: PAGE, now: NOW });
}

/** GitHub's captured summary.json, changed as a test needs. */
function summaryWith(changes: Json): Json {
  return { ...fixtureJson('statuspage-github-summary.json'), ...changes };
}

const noIncidents = { page: fixtureJson('statuspage-github-summary.json').page, incidents: [] };

/** The captured critical GitHub incident (resolved), changed as a test needs. */
function critical(changes: Json = {}): Json {
  return { ...fixtureJson('statuspage-github-incident-critical.json'), ...changes };
}

function openCritical(impact: string): Json {
  return critical({ status: 'investigating', resolved_at: null, impact, updated_at: '2026-07-20T01:00:00.000Z' });
}

function maintenance(status: string): Json {
  return {
    id: 'mnt1',
    name: 'Database upgrade',
    status,
    impact: 'maintenance',
    created_at: '2026-08-01T10:00:00.000Z',
    updated_at: '2026-08-19T22:00:00.000Z',
    scheduled_for: '2026-08-19T22:00:00.000Z',
    scheduled_until: '2026-08-20T02:00:00.000Z',
    shortlink: 'https://stspg.io/mnt1',
    incident_updates: [],
    components: [],
  };
}

describe('statuspage reader', () => {
  it('fetches summary.json and incidents.json under the page address', () => {
    expect(statuspage.documents('https://www.githubstatus.com/')).toEqual([
      'https://www.githubstatus.com/api/v2/summary.json',
      'https://www.githubstatus.com/api/v2/incidents.json',
    ]);
  });

  it("reads GitHub's captured summary and incidents", () => {
    const snapshot = statuspage.parse([fixture('statuspage-github-summary.json'), fixture('statuspage-github-incidents.json')], { url: PAGE, now: NOW });
    expect(snapshot.indicator).toBe('ok');
    expect(snapshot.components).toHaveLength(12);
    expect(snapshot.components[0]).toEqual({ name: 'Git Operations', status: 'operational' });
    expect(snapshot.components.map((c) => c.name)).toContain('Copilot AI Model Providers');
    expect(snapshot.maintenances).toEqual([]);
    expect(snapshot.incidents.map((i) => [i.id, i.severity, i.severityFromProvider, i.resolved])).toEqual([
      ['bmpybhnrky3x', 'minor', 'minor', true],
      ['gx7js8bd0jpz', 'major', 'major', true],
      ['zkxwbgr0cnmx', 'major', 'critical', true],
      ['pf25whpq58hh', 'minor', 'minor', true],
      ['24t8gsgqx2qb', 'minor', 'minor', true],
    ]);
    const posted = snapshot.incidents[1]!;
    expect(posted.title).toBe('Incident with Actions');
    expect(posted.url).toBe('https://stspg.io/q3ck88mqw08z');
    expect(posted.createdAt).toEqual(new Date('2026-08-18T09:36:40.322Z'));
    expect(posted.updatedAt).toEqual(new Date('2026-08-18T12:09:11.213Z'));
    expect(posted.resolvedAt).toEqual(new Date('2026-08-18T10:23:23.000Z'));
    expect(posted.description).toMatch(/^This incident was posted in error\./);
    expect(posted.components).toEqual([]);
    expect(posted.updates.map((u) => u.stage)).toEqual(['investigating', 'resolved']);
    const copilot = snapshot.incidents[4]!;
    expect(copilot.components).toEqual(['Copilot AI Model Providers']);
  });

  it.each([
    ['none', 'ok'],
    ['minor', 'minor'],
    ['major', 'major'],
    ['critical', 'major'],
    ['maintenance', 'maintenance'],
  ])('maps the indicator %s to %s', (indicator, status) => {
    const snapshot = read(summaryWith({ status: { indicator, description: 'x' } }), noIncidents);
    expect(snapshot.indicator).toBe(status);
  });

  it.each([
    ['in_progress', 'maintenance'],
    ['verifying', 'maintenance'],
    ['scheduled', 'ok'],
    ['completed', 'ok'],
  ])('reads indicator none with a maintenance %s as %s', (status, indicator) => {
    const snapshot = read(summaryWith({ scheduled_maintenances: [maintenance(status)] }), noIncidents);
    expect(snapshot.indicator).toBe(indicator);
    expect(snapshot.maintenances).toEqual([
      {
        id: 'mnt1',
        name: 'Database upgrade',
        startsAt: new Date('2026-08-19T22:00:00.000Z'),
        endsAt: new Date('2026-08-20T02:00:00.000Z'),
        status,
        components: [],
        url: 'https://stspg.io/mnt1',
      },
    ]);
  });

  it.each([
    ['critical', 'major'],
    ['major', 'major'],
    ['minor', 'minor'],
    ['none', 'maintenance'],
  ])('lets an open %s incident outrank a maintenance (%s)', (impact, indicator) => {
    const summary = summaryWith({ status: { indicator: 'maintenance' }, incidents: [openCritical(impact)] });
    expect(read(summary, noIncidents).indicator).toBe(indicator);
  });

  it('lets an open incident outrank a maintenance in progress under indicator none', () => {
    const summary = summaryWith({ scheduled_maintenances: [maintenance('in_progress')], incidents: [openCritical('minor')] });
    expect(read(summary, noIncidents).indicator).toBe('minor');
  });

  it('does not let a resolved incident outrank a maintenance', () => {
    const summary = summaryWith({ status: { indicator: 'maintenance' }, incidents: [critical()] });
    expect(read(summary, noIncidents).indicator).toBe('maintenance');
  });

  it('reads the critical incident with its updates, stages, shortlink and components', () => {
    const snapshot = read(summaryWith({}), { ...noIncidents, incidents: [critical()] });
    const [incident] = snapshot.incidents;
    expect(snapshot.incidents).toHaveLength(1);
    expect(incident).toMatchObject({
      id: '8vfyvq16hzh9',
      title: 'Incident with GitHub Actions',
      severity: 'major',
      severityFromProvider: 'critical',
      url: 'https://stspg.io/w8d77c7t94zf',
      components: ['API Requests', 'Issues', 'Actions', 'Pages'],
      createdAt: new Date('2026-07-19T23:34:03.457Z'),
      updatedAt: new Date('2026-07-21T21:34:18.768Z'),
      resolved: true,
      resolvedAt: new Date('2026-07-20T04:44:03.085Z'),
    });
    expect(incident!.description).toMatch(/^Between July 19, 2026, at 23:05 UTC and July 20, 2026, at 03:55 UTC, Actions/);
    const updates = incident!.updates;
    expect(updates).toHaveLength(18);
    expect(updates[0]).toEqual({
      stage: 'investigating',
      description: 'We are investigating reports of degraded performance for Actions',
      createdAt: new Date('2026-07-19T23:34:03.512Z'),
    });
    expect(updates.map((u) => u.stage)).toEqual([...Array<string>(15).fill('investigating'), 'monitoring', 'monitoring', 'resolved']);
    expect(updates[15]!.createdAt).toEqual(new Date('2026-07-20T03:34:48.538Z'));
    expect(updates[17]!.description).toBe(incident!.description);
    expect(updates.map((u) => u.createdAt.getTime())).toEqual([...updates.map((u) => u.createdAt.getTime())].sort((a, b) => a - b));
  });

  it("falls back to the updates' affected components, in the order they were first affected", () => {
    const snapshot = read(summaryWith({}), { ...noIncidents, incidents: [critical({ components: [] })] });
    expect(snapshot.incidents[0]!.components).toEqual(['Actions', 'API Requests', 'Pages', 'Issues']);
  });

  it('falls back to the page address when an incident has no shortlink', () => {
    const snapshot = read(summaryWith({}), { ...noIncidents, incidents: [critical({ shortlink: null })] });
    expect(snapshot.incidents[0]!.url).toBe('https://www.githubstatus.com/incidents/8vfyvq16hzh9');
  });

  it('reads a postmortem as resolved', () => {
    const base = critical();
    const updates = base.incident_updates as Json[];
    const postmortem = {
      ...updates[0],
      id: 'pm1',
      status: 'postmortem',
      body: 'Postmortem.',
      created_at: '2026-07-21T21:34:00.000Z',
      display_at: '2026-07-21T21:34:00.000Z',
    };
    const snapshot = read(summaryWith({}), {
      ...noIncidents,
      incidents: [{ ...base, status: 'postmortem', resolved_at: null, incident_updates: [postmortem, ...updates] }],
    });
    const [incident] = snapshot.incidents;
    expect(incident!.resolved).toBe(true);
    expect(incident!.resolvedAt).toEqual(new Date('2026-07-21T21:34:18.768Z'));
    expect(incident!.description).toBe('Postmortem.');
    expect(incident!.updates.at(-1)).toEqual({ stage: 'resolved', description: 'Postmortem.', createdAt: new Date('2026-07-21T21:34:00.000Z') });
  });

  it("keeps the previous stage for a status that is not one (a maintenance's), investigating when first", () => {
    const base = critical();
    const [u1, u2, u3, u4, u5] = (base.incident_updates as Json[]).slice(-5).reverse();
    const statuses = ['scheduled', 'identified', 'in_progress', 'verifying', 'completed'];
    const incident_updates = [u1, u2, u3, u4, u5].map((u, i) => ({ ...u, status: statuses[i] })).reverse();
    const snapshot = read(summaryWith({}), { ...noIncidents, incidents: [{ ...base, incident_updates }] });
    expect(snapshot.incidents[0]!.updates.map((u) => u.stage)).toEqual(['investigating', 'identified', 'identified', 'identified', 'identified']);
  });

  it("merges the summary's incidents with incidents.json by id, the later updated_at winning", () => {
    const resolved = critical();
    const stillOpen = openCritical('critical');
    const other = { ...openCritical('minor'), id: 'only-in-summary', name: 'Only in the summary' };
    const newer = read(summaryWith({ incidents: [stillOpen, other] }), { ...noIncidents, incidents: [resolved] });
    expect(newer.incidents.map((i) => [i.id, i.resolved])).toEqual([
      ['8vfyvq16hzh9', true],
      ['only-in-summary', false],
    ]);
    const reopened = { ...stillOpen, updated_at: '2026-07-22T00:00:00.000Z' };
    const older = read(summaryWith({ incidents: [reopened] }), { ...noIncidents, incidents: [resolved] });
    expect(older.incidents.map((i) => [i.id, i.resolved])).toEqual([['8vfyvq16hzh9', false]]);
  });

  it('leaves component groups out', () => {
    const components = [
      { id: 'g', name: 'Regions', status: 'partial_outage', group: true },
      { id: 'c', name: 'EU', status: 'partial_outage', group: false, group_id: 'g' },
      { id: 'd', name: 'US', status: 'operational' },
    ];
    expect(read(summaryWith({ components }), noIncidents).components).toEqual([
      { name: 'EU', status: 'partial_outage' },
      { name: 'US', status: 'operational' },
    ]);
  });
});

const GITHUB_LIST = 'json/statuspage-github-incidents-components.json';
const githubList = (): { page: Json; incidents: Json[] } => fixtureJson(GITHUB_LIST) as { page: Json; incidents: Json[] };
const quietSummary = (page: unknown): Json => ({ page, status: { indicator: 'none' }, components: [], incidents: [], scheduled_maintenances: [] });

describe('statuspage reader on captured payloads', () => {
  it("keeps Renku's upcoming maintenance from summary.json, with its window, components and page", () => {
    const summary = fixtureJson('json/statuspage-renku-summary-maintenance.json');
    const snapshot = read(summary, { incidents: [] });
    expect(snapshot.indicator).toBe('ok');
    expect(snapshot.components.map((c) => c.name)).toEqual(['API', 'KG', 'Core Service', 'Loud']);
    expect(snapshot.maintenances).toEqual([
      {
        id: 'gtny7hgjy2qx',
        name: 'Please shut down any sessions',
        startsAt: new Date('2021-11-01T08:30:00.000Z'),
        endsAt: new Date('2021-11-01T10:30:00.000Z'),
        status: 'scheduled',
        components: ['API'],
        url: 'https://stspg.io/yzmzx4a0600v',
      },
    ]);
    expect(snapshot.skipped).toEqual([]);
  });

  it("reads GitHub's incidents with the components each one affected", () => {
    const snapshot = statuspage.parse([fixture('statuspage-github-summary.json'), fixture(GITHUB_LIST)], { url: PAGE, now: NOW });
    expect(snapshot.skipped).toEqual([]);
    expect(snapshot.incidents).toHaveLength(50);
    expect(snapshot.incidents.every((i) => i.resolved)).toBe(true);
    const byId = new Map(snapshot.incidents.map((i) => [i.id, i]));
    expect(byId.get('9tpgqq1h4bs7')).toMatchObject({
      title: 'Copilot model Claude Fable 5 experiencing elevated errors',
      severity: 'minor',
      url: 'https://stspg.io/45g8r57kv3n9',
      components: ['Copilot AI Model Providers'],
      createdAt: new Date('2026-07-30T09:07:42.419Z'),
      resolvedAt: new Date('2026-07-30T10:12:15.489Z'),
    });
    expect(byId.get('9tpgqq1h4bs7')!.updates.map((u) => u.stage)).toEqual(['investigating', 'investigating', 'investigating', 'resolved']);
    expect(byId.get('yjysg0xrl67m')!.components).toEqual(['API Requests', 'Issues', 'Pull Requests', 'Actions', 'Pages', 'Copilot']);
    expect(byId.get('594m87r8sw13')).toMatchObject({
      title: 'Incident With Blocked GitHub.com Traffic',
      severity: 'minor',
      severityFromProvider: 'none',
      components: [],
    });
  });

  it("reads Emma's older incidents: null affected components, the no-component placeholder, backfilled updates", () => {
    const list = fixtureJson('json/statuspage-emma-incidents.json');
    const snapshot = read(quietSummary(list.page), list);
    expect(snapshot.skipped).toEqual([]);
    expect(snapshot.incidents).toHaveLength(22);
    expect(snapshot.incidents.every((i) => i.resolved && i.url?.startsWith('http://stspg.io/'))).toBe(true);
    const byId = new Map(snapshot.incidents.map((i) => [i.id, i]));
    expect(byId.get('gm8jc9315cyk')).toMatchObject({
      title: 'Emma Application is currently down',
      severity: 'major',
      createdAt: new Date('2018-10-23T04:57:26.169Z'),
      resolvedAt: new Date('2018-10-23T06:30:33.671Z'),
    });
    expect(byId.get('gm8jc9315cyk')!.components.slice(0, 3)).toEqual([
      'Web Application - Home',
      'Web Application - Audience Contacts and Groups',
      'Web Application - Segments',
    ]);
    expect(byId.get('x9wt6q4wbbvn')!.components).toEqual(['Web Application - Home', 'Web Application - Email Editor']);
    // Its updates name only "No components were affected by this update.", and were typed weeks after they are dated.
    const backfilled = byId.get('qfcmvk731yl3')!;
    expect(backfilled).toMatchObject({
      title: 'Elevated API Errors',
      components: [],
      createdAt: new Date('2017-06-11T11:55:00.000Z'),
      resolvedAt: new Date('2017-06-11T13:20:00.000Z'),
    });
    expect(backfilled.updates.map((u) => [u.stage, u.createdAt.toISOString()])[0]).toEqual(['investigating', '2017-06-11T11:55:00.000Z']);
  });
});

describe('statuspage reader with one bad item in a real document', () => {
  function broken(change: (incidents: Json[]) => void): { page: Json; incidents: Json[] } {
    const list = githubList();
    change(list.incidents);
    return list;
  }

  it('skips an incident with an unreadable date and one without id, names them, and reads the rest', () => {
    const list = broken((incidents) => {
      incidents[3] = { ...incidents[3], created_at: 'yesterday' };
      delete incidents[5]!.id;
    });
    const snapshot = read(summaryWith({}), list);
    expect(snapshot.skipped).toEqual([
      'incidents.json: incidents[3] (id "fmmsrcg5x638"): created_at should be a date, got "yesterday"',
      'incidents.json: incidents[5] (name "Several GPT models degraded"): id is missing',
    ]);
    expect(snapshot.incidents).toHaveLength(48);
    expect(snapshot.incidents.map((i) => i.id)).not.toContain('fmmsrcg5x638');
    expect(snapshot.incidents[0]).toMatchObject({ id: '9tpgqq1h4bs7', resolved: true, components: ['Copilot AI Model Providers'] });
  });

  it('applies a resolution published in incidents.json though another incident there is unreadable', () => {
    const stillOpen = openCritical('critical');
    const list = { ...noIncidents, incidents: [{ id: 'x', name: 'Broken', resolved_at: 42 }, critical()] };
    const snapshot = read(summaryWith({ incidents: [stillOpen] }), list);
    expect(snapshot.incidents.map((i) => [i.id, i.resolved])).toEqual([['8vfyvq16hzh9', true]]);
    expect(snapshot.skipped).toEqual(['incidents.json: incidents[0] (id "x"): resolved_at should be a string']);
  });

  it('reads null impact, shortlink and updates as absent', () => {
    const list = broken((incidents) => {
      incidents[0] = { ...incidents[0], impact: null, shortlink: null, incident_updates: null };
    });
    const snapshot = read(summaryWith({}), list);
    expect(snapshot.skipped).toEqual([]);
    expect(snapshot.incidents[0]).toMatchObject({
      id: '9tpgqq1h4bs7',
      severity: 'minor',
      severityFromProvider: null,
      url: 'https://www.githubstatus.com/incidents/9tpgqq1h4bs7',
      components: ['Copilot AI Model Providers'],
      resolved: true,
      updates: [],
    });
  });

  it('skips one unreadable update of an incident and keeps the incident with its other updates', () => {
    const list = broken((incidents) => {
      const updates = [...(incidents[0]!.incident_updates as Json[])];
      updates[1] = { ...updates[1], display_at: 'soon' };
      incidents[0] = { ...incidents[0], incident_updates: updates };
    });
    const snapshot = read(summaryWith({}), list);
    expect(snapshot.skipped).toEqual([
      'incidents.json: incidents[0] (id "9tpgqq1h4bs7"): incident_updates[1] (id "037n83zvm9h2"): display_at should be a date, got "soon"',
    ]);
    expect(snapshot.incidents[0]!.updates.map((u) => u.stage)).toEqual(['investigating', 'investigating', 'resolved']);
  });

  it('marks an incident that gives no date at all as undated, read at the time of the read', () => {
    const list = broken((incidents) => {
      incidents[0] = { ...incidents[0], created_at: null, started_at: null, updated_at: null, resolved_at: null, incident_updates: [] };
    });
    expect(read(summaryWith({}), list).incidents[0]).toMatchObject({ id: '9tpgqq1h4bs7', undated: true, createdAt: NOW, resolved: true });
    expect(read(summaryWith({}), githubList()).incidents.some((i) => i.undated)).toBe(false);
  });

  it('skips a component without a status and keeps the others', () => {
    const summary = fixtureJson('json/statuspage-renku-summary-maintenance.json');
    const components = (summary.components as Json[]).map((c, n) => (n === 1 ? { ...c, status: null } : c));
    const snapshot = read({ ...summary, components }, { incidents: [] });
    expect(snapshot.components.map((c) => c.name)).toEqual(['API', 'Core Service', 'Loud']);
    expect(snapshot.skipped).toEqual(['summary.json: components[1] (id "y0j1kqyxj1w2"): status should be a string']);
  });

  it('skips a maintenance that gives no time at all', () => {
    const summary = fixtureJson('json/statuspage-renku-summary-maintenance.json');
    const [real] = summary.scheduled_maintenances as Json[];
    const undated = { ...real, scheduled_for: null, started_at: null, created_at: null };
    const snapshot = read({ ...summary, scheduled_maintenances: [undated] }, { incidents: [] });
    expect(snapshot.maintenances).toEqual([]);
    expect(snapshot.skipped).toEqual(['summary.json: scheduled_maintenances[0] (id "gtny7hgjy2qx"): scheduled_for is missing']);
  });
});
