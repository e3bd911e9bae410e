import { describe, expect, it } from 'vitest';
import { instatus } from '../../src/ingest/instatus.js';
import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { fixture, NOW } from './fixtures.js';

// The example response of https://instatus.com/help/api/public-data.
const DOCUMENTED = {
  page: { name: 'Instatus', url: 'https://instat.us', status: 'HASISSUES' },
  activeIncidents: [
    {
      name: "We're facing an issue with our API",
      started: 'Sat Jun 11 2022 18:55:50 GMT+0000 (Coordinated Universal Time)',
      status: 'INVESTIGATING',
      impact: 'MAJOROUTAGE',
      url: 'https://testing-widget.instatus.com/incident/cl4a8n3070721qtmzvts760c4',
    },
  ],
  activeMaintenances: [
    {
      name: 'Database maintenance',
      start: 'Sat Jun 11 2022 18:55:54 GMT+0000 (Coordinated Universal Time)',
      status: 'NOTSTARTEDYET',
      duration: '60',
      url: 'https://testing-widget.instatus.com/maintenance/cl4a8nlv50918qtmzdlw60ivu',
    },
  ],
};

function read(body: unknown): VendorSnapshot {
  return instatus.parse([JSON.stringify(body)], { url: 'https://instat.us', now: NOW });
}

const incident = (impact: string, status = 'INVESTIGATING') => ({ ...DOCUMENTED.activeIncidents[0]!, impact, status });
const maintenance = (status: string) => ({ ...DOCUMENTED.activeMaintenances[0]!, status });

describe('instatus reader', () => {
  it('fetches summary.json under the page address', () => {
    expect(instatus.documents('https://instat.us/')).toEqual(['https://instat.us/summary.json']);
  });

  it('reads the documented example field by field', () => {
    const snapshot = read(DOCUMENTED);
    expect(snapshot.indicator).toBe('major');
    expect(snapshot.components).toEqual([]);
    expect(snapshot.incidents).toEqual([
      {
        id: 'cl4a8n3070721qtmzvts760c4',
        title: "We're facing an issue with our API",
        severity: 'major',
        severityFromProvider: 'MAJOROUTAGE',
        url: 'https://testing-widget.instatus.com/incident/cl4a8n3070721qtmzvts760c4',
        description: '',
        components: [],
        createdAt: new Date('2022-06-11T18:55:50Z'),
        updatedAt: new Date('2022-06-11T18:55:50Z'),
        resolved: false,
        resolvedAt: null,
        updates: [{ stage: 'investigating', description: '', createdAt: new Date('2022-06-11T18:55:50Z') }],
      },
    ]);
    expect(snapshot.maintenances).toEqual([
      {
        id: 'cl4a8nlv50918qtmzdlw60ivu',
        name: 'Database maintenance',
        startsAt: new Date('2022-06-11T18:55:54Z'),
        endsAt: new Date('2022-06-11T19:55:54Z'),
        status: 'NOTSTARTEDYET',
        components: [],
        url: 'https://testing-widget.instatus.com/maintenance/cl4a8nlv50918qtmzdlw60ivu',
      },
    ]);
  });

  it.each([
    ['UP', [], [], 'ok'],
    ['UP', [], [maintenance('INPROGRESS')], 'maintenance'],
    ['UP', [], [maintenance('NOTSTARTEDYET')], 'ok'],
    ['UP', [incident('DEGRADEDPERFORMANCE', 'IDENTIFIED')], [], 'minor'],
    ['UP', [incident('MAJOROUTAGE')], [maintenance('INPROGRESS')], 'major'],
    ['UP', [incident('OPERATIONAL', 'MONITORING')], [], 'ok'],
    ['UP', [incident('MAJOROUTAGE', 'RESOLVED')], [], 'ok'],
    ['HASISSUES', [], [], 'minor'],
    ['HASISSUES', [incident('PARTIALOUTAGE')], [], 'minor'],
    ['HASISSUES', [incident('MAJOROUTAGE')], [], 'major'],
    ['UNDERMAINTENANCE', [], [maintenance('INPROGRESS')], 'maintenance'],
    ['UNDERMAINTENANCE', [incident('DEGRADEDPERFORMANCE')], [], 'minor'],
    ['UNDERMAINTENANCE', [incident('MAJOROUTAGE', 'RESOLVED')], [], 'maintenance'],
    ['SOMEMAJOROUTAGE', [], [], 'major'],
    ['ONEDEGRADEDPERFORMANCE', [], [], 'minor'],
    ['SOMETHINGNEW', [], [], null],
  ])('reads page status %s with incidents %j and maintenances %j as %s', (status, activeIncidents, activeMaintenances, indicator) => {
    expect(read({ page: { ...DOCUMENTED.page, status }, activeIncidents, activeMaintenances }).indicator).toBe(indicator);
  });

  // A real capture: the page word says UP while it lists an open, identified incident.
  it("reads Manychat's captured summary: the open incident, and not the page's UP", () => {
    const snapshot = instatus.parse([fixture('instatus/summary-manychat-2026-05.json')], { url: 'https://status.manychat.com', now: NOW });
    expect(snapshot.indicator).toBe('minor');
    expect(snapshot.incidents).toEqual([
      {
        id: 'cmmxljn3s01ntuud42lsa7zud',
        title: 'Delays in Instagram automation',
        severity: 'minor',
        severityFromProvider: 'DEGRADEDPERFORMANCE',
        url: 'https://status.manychat.com/cmmxljn3s01ntuud42lsa7zud',
        description: '',
        components: [],
        createdAt: new Date('2026-03-17T03:00:00Z'),
        updatedAt: new Date('2026-05-06T15:19:52.073Z'),
        resolved: false,
        resolvedAt: null,
        updates: [{ stage: 'identified', description: '', createdAt: new Date('2026-05-06T15:19:52.073Z') }],
      },
    ]);
    expect(snapshot.maintenances).toEqual([]);
    expect(snapshot.skipped).toEqual([]);
  });

  it("reads Recraft's captured healthy summary, which leaves both lists out, as ok with nothing open", () => {
    expect(instatus.parse([fixture('instatus/summary-recraft.json')], { url: 'https://recraft.instatus.com', now: NOW })).toEqual({
      indicator: 'ok',
      components: [],
      incidents: [],
      maintenances: [],
      skipped: [],
    });
  });

  it('reads the id and updatedAt live pages add, and a page that leaves its lists out', () => {
    const withId = { ...incident('PARTIALOUTAGE', 'MONITORING'), id: 'inc1', started: '2026-03-20T10:00:00Z', updatedAt: '2026-03-20T10:30:00Z' };
    const [read1] = read({ page: DOCUMENTED.page, activeIncidents: [withId] }).incidents;
    expect(read1).toMatchObject({
      id: 'inc1',
      createdAt: new Date('2026-03-20T10:00:00Z'),
      updatedAt: new Date('2026-03-20T10:30:00Z'),
      updates: [{ stage: 'monitoring', description: '', createdAt: new Date('2026-03-20T10:30:00Z') }],
    });
    expect(read({ page: { name: 'Polymarket', url: 'https://status.polymarket.com', status: 'UP' } })).toEqual({
      indicator: 'ok',
      components: [],
      incidents: [],
      maintenances: [],
      skipped: [],
    });
  });

  it('skips an incident with an unreadable start and a maintenance without a name, and reads the rest', () => {
    const snapshot = read({
      ...DOCUMENTED,
      activeIncidents: [{ ...incident('MINOROUTAGE'), started: 'yesterday' }, ...DOCUMENTED.activeIncidents],
      activeMaintenances: [{ ...maintenance('INPROGRESS'), name: null }, maintenance('NOTSTARTEDYET')],
    });
    expect(snapshot.skipped).toEqual([
      'summary.json: activeIncidents[0] (name "We\'re facing an issue with our API"): started should be a date, got "yesterday"',
      'summary.json: activeMaintenances[0]: name should be a string',
    ]);
    expect(snapshot.incidents.map((i) => [i.id, i.severity])).toEqual([['cl4a8n3070721qtmzvts760c4', 'major']]);
    expect(snapshot.maintenances.map((m) => m.status)).toEqual(['NOTSTARTEDYET']);
    expect(snapshot.indicator).toBe('major');
  });

  it('reads odd optional fields as absent, marks an incident without any date as undated, and skips a maintenance without a start', () => {
    const { started: _started, ...undated } = { ...incident('MAJOROUTAGE'), id: 42, url: null };
    const { start: _start, ...unscheduled } = maintenance('INPROGRESS');
    const snapshot = read({ ...DOCUMENTED, activeIncidents: [undated], activeMaintenances: [unscheduled] });
    expect(snapshot.incidents).toMatchObject([{ id: "We're facing an issue with our API", url: null, undated: true, createdAt: NOW }]);
    expect(snapshot.maintenances).toEqual([]);
    expect(snapshot.skipped).toEqual(['summary.json: activeMaintenances[0] (name "Database maintenance"): start is missing']);
  });

  it('refuses a summary without a page status', () => {
    expect(() => read({ page: { name: 'x' } })).toThrow(/summary\.json: unexpected content: page\.status is missing/);
  });
});
