import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { incidentio } from '../../src/ingest/incidentio.js';
import { FeedFormatError } from '../../src/ingest/vendor-snapshot.js';
import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { fixture, fixtureJson, NOW } from './fixtures.js';
import { wellFormed } from './well-formed.js';

// Hand-built documents, for the edges the captured ones do not show (incidentio/SOURCES.md).
const PAGE = 'https://status.example.com';
const SUMMARY = fixture('incidentio/summary-built.json');
const INCIDENTS = fixture('incidentio/incidents-built.json');

function read(summary: string | object, incidents: string | object = INCIDENTS): VendorSnapshot {
  const text = (body: string | object) => (typeof body === 'string' ? body : JSON.stringify(body));
  return incidentio.parse([text(summary), text(incidents)], { url: PAGE, now: NOW });
}

describe('incidentio reader', () => {
  it("fetches Statuspage's summary.json and incidents.json under the page address", () => {
    expect(incidentio.documents('https://status.example.com/')).toEqual([
      'https://status.example.com/api/v2/summary.json',
      'https://status.example.com/api/v2/incidents.json',
    ]);
  });

  it('reads the status, the flat components and a page that sends its empty maintenance list as null', () => {
    const snapshot = read(SUMMARY);
    expect(snapshot.indicator).toBe('minor');
    expect(snapshot.components).toEqual([
      { name: 'API', status: 'degraded_performance' },
      { name: 'Dashboard', status: 'operational' },
    ]);
    expect(snapshot.maintenances).toEqual([]);
    expect(snapshot.skipped).toEqual([]);
  });

  it("links an incident without shortlink to the page's own incident address, with its updates oldest first", () => {
    const open = read(SUMMARY).incidents.find((i) => i.id === '01K2Z4M0A1B2C3D4E5F6G7H8J9');
    expect(open).toMatchObject({
      title: 'Elevated API error rates',
      severity: 'minor',
      url: 'https://status.example.com/incidents/01K2Z4M0A1B2C3D4E5F6G7H8J9',
      resolved: false,
      resolvedAt: null,
      description: 'We have found the cause and are rolling out a fix.',
    });
    expect(open!.updates.map((u) => u.stage)).toEqual(['investigating', 'identified']);
  });

  it('reads a resolved incident with its resolution time and stages', () => {
    const resolved = read(SUMMARY).incidents.find((i) => i.id === '01M36RMC01ZFWQ861WYJKC4XE1');
    expect(resolved).toMatchObject({
      severity: 'major',
      severityFromProvider: 'major',
      resolved: true,
      createdAt: new Date('2026-08-12T09:13:00Z'),
      resolvedAt: new Date('2026-08-12T09:54:16Z'),
      description: 'All impacted services have now fully recovered.',
    });
    expect(resolved!.updates.map((u) => [u.stage, u.createdAt.toISOString()])).toEqual([
      ['investigating', '2026-08-12T09:13:00.000Z'],
      ['monitoring', '2026-08-12T09:31:00.000Z'],
      ['resolved', '2026-08-12T09:54:16.000Z'],
    ]);
  });

  it('reads lists sent as null, or left out, as empty in either document', () => {
    const quiet = { ...fixtureJson('incidentio/summary-built.json'), status: { indicator: 'none' } } as Record<string, unknown>;
    delete quiet.incidents;
    const snapshot = read(quiet, { page: quiet.page, incidents: null });
    expect(snapshot).toMatchObject({ indicator: 'ok', incidents: [], maintenances: [], skipped: [] });
    expect(read(quiet, { page: quiet.page }).incidents).toEqual([]);
  });

  it('skips an incident it cannot read, names it, and keeps the others', () => {
    const list = fixtureJson('incidentio/incidents-built.json') as { incidents: unknown[] };
    list.incidents.push({ id: '01BAD', name: 'Broken', created_at: 'yesterday' });
    const snapshot = read(SUMMARY, list);
    expect(snapshot.incidents).toHaveLength(2);
    expect(snapshot.skipped).toEqual(['incidents.json: incidents[2] (id "01BAD"): created_at should be a date, got "yesterday"']);
  });

  it('refuses an HTML page in place of either document', () => {
    const html = '<!DOCTYPE html><html><body>Status</body></html>';
    expect(() => read(html)).toThrow(FeedFormatError);
    expect(() => read(html)).toThrow(/^summary\.json: an HTML page instead of JSON$/);
    expect(() => read(SUMMARY, html)).toThrow(/^incidents\.json: an HTML page instead of JSON$/);
  });
});

describe("incidentio reader on OpenAI's captured documents", () => {
  // The captures are of different days, so each check is about the items of one document.
  const OPENAI = 'https://status.openai.com';
  const READ_AT = new Date('2026-10-01T00:00:00Z');
  const OUTAGE = fixture('incidentio/openai-summary-2026-09-29.json');
  const QUIET = fixture('incidentio/openai-summary-2026-07-09.json');
  const HISTORY = fixture('incidentio/openai-incidents-2026-09-15.json');
  const openai = (summary: string, incidents: string) => incidentio.parse([summary, incidents], { url: OPENAI, now: READ_AT });
  const byId = (snapshot: VendorSnapshot, id: string) => snapshot.incidents.find((i) => i.id === id);
  const timeline = (snapshot: VendorSnapshot, id: string) => byId(snapshot, id)!.updates.map((u) => [u.stage, u.createdAt.toISOString()]);

  it('reads the page during an outage: partial degradation and its flat components, with nothing skipped', () => {
    const snapshot = openai(OUTAGE, HISTORY);
    expect(snapshot.indicator).toBe('minor');
    expect(snapshot.components).toEqual([
      { name: 'Realtime', status: 'degraded_performance' },
      { name: 'Compliance API', status: 'degraded_performance' },
      { name: 'Ads API', status: 'operational' },
      { name: 'Chat Completions', status: 'degraded_performance' },
      { name: 'Login', status: 'degraded_performance' },
      { name: 'Decisions', status: 'operational' },
      { name: 'dots', status: 'operational' },
    ]);
    expect(snapshot.maintenances).toEqual([]);
    expect(snapshot.skipped).toEqual([]);
    expect(wellFormed(snapshot)).toBe(true);
  });

  it("reads the open incidents, each linked to the page's own incident address, updates oldest first", () => {
    const snapshot = openai(OUTAGE, HISTORY);
    const id = '01M3Q4RK1SM4EMK445GGPG7C0N';
    expect(byId(snapshot, id)).toMatchObject({
      title: 'Elevated errors across ChatGPT, Codex, and the API including the Agents API',
      severity: 'minor',
      severityFromProvider: 'minor',
      url: `${OPENAI}/incidents/${id}`,
      components: [],
      createdAt: new Date('2026-09-29T17:52:52Z'),
      updatedAt: new Date('2026-09-29T18:24:17Z'),
      resolved: false,
      resolvedAt: null,
    });
    expect(byId(snapshot, id)!.description).toMatch(
      /^We’re investigating elevated errors affecting ChatGPT, Codex, and the API including the Agents API\.\n\nSome users/,
    );
    expect(timeline(snapshot, id)).toEqual([
      ['investigating', '2026-09-29T17:52:52.000Z'],
      ['investigating', '2026-09-29T18:24:17.000Z'],
    ]);
    // An incident the page rates "none" is still an open incident, shown at the lowest severity.
    expect(byId(snapshot, '01M3Q4HMNP8SZ27DTZKW6F5BJ4')).toMatchObject({
      title: 'Support chat unavailable',
      severity: 'minor',
      severityFromProvider: 'none',
      resolved: false,
      updatedAt: new Date('2026-09-29T17:55:17Z'),
    });
  });

  it('reads a quiet page that leaves its incident list out: all operational, only resolved incidents', () => {
    const snapshot = openai(QUIET, HISTORY);
    expect(snapshot.indicator).toBe('ok');
    expect(snapshot.components.map((c) => c.name)).toEqual(['Images', 'Login', 'FedRAMP', 'Sora', 'Voice mode', 'ChatGPT Atlas']);
    expect(snapshot.components.every((c) => c.status === 'operational')).toBe(true);
    expect(snapshot.incidents.map((i) => [i.id, i.resolved])).toEqual([
      ['01M2HYH64J2CZMZ63HEV2FCQFA', true],
      ['01M2GA8XTS6VB3QCDEGZ0HNAQ5', true],
      ['01M2H3J1D6Y7RHAP49GRWGJAY0', true],
      ['01M2D1CZG0862JB4JHVW56QF89', true],
      ['01M23BNX5V1XT9P3NP0PX56FTN', true],
    ]);
    expect(snapshot.skipped).toEqual([]);
  });

  it('reads a resolved incident with its stages, times and resolution', () => {
    const snapshot = openai(QUIET, HISTORY);
    expect(byId(snapshot, '01M2HYH64J2CZMZ63HEV2FCQFA')).toMatchObject({
      title: 'Elevated errors from GPT-5.6 and GPT-5.6 Instant on paid plans',
      severity: 'minor',
      createdAt: new Date('2026-09-15T07:12:04Z'),
      resolvedAt: new Date('2026-09-15T07:53:36Z'),
      description: 'All impacted services have now fully recovered.',
    });
    expect(timeline(snapshot, '01M2HYH64J2CZMZ63HEV2FCQFA')).toEqual([
      ['investigating', '2026-09-15T07:12:04.000Z'],
      ['monitoring', '2026-09-15T07:24:26.000Z'],
      ['resolved', '2026-09-15T07:53:36.000Z'],
    ]);
    // Posted once the fix was already out: its first update is at monitoring.
    expect(timeline(snapshot, '01M2GA8XTS6VB3QCDEGZ0HNAQ5').map(([stage]) => stage)).toEqual(['monitoring', 'monitoring', 'resolved']);
  });

  it('starts an incident at its first update when that update is dated before the incident was written', () => {
    const snapshot = openai(QUIET, HISTORY);
    // "Since 1:30 PM Pacific Time": written at 23:20, shown at 20:30.
    expect(byId(snapshot, '01M2H3J1D6Y7RHAP49GRWGJAY0')).toMatchObject({
      createdAt: new Date('2026-09-14T20:30:00Z'),
      resolvedAt: new Date('2026-09-14T23:39:21Z'),
      severityFromProvider: 'none',
    });
    expect(timeline(snapshot, '01M2H3J1D6Y7RHAP49GRWGJAY0')[0]).toEqual(['monitoring', '2026-09-14T20:30:00.000Z']);
    expect(byId(snapshot, '01M23BNX5V1XT9P3NP0PX56FTN')!.createdAt).toEqual(new Date('2026-09-09T14:51:00Z'));
  });

  it('takes the last resolution of an incident that was reopened after its resolved_at', () => {
    const snapshot = openai(QUIET, HISTORY);
    const id = '01M2D1CZG0862JB4JHVW56QF89';
    expect(timeline(snapshot, id)).toEqual([
      ['investigating', '2026-09-13T09:26:00.000Z'],
      ['identified', '2026-09-13T09:32:51.000Z'],
      ['identified', '2026-09-13T09:35:40.000Z'],
      ['resolved', '2026-09-13T09:53:42.000Z'],
      ['monitoring', '2026-09-13T09:55:55.000Z'],
      ['resolved', '2026-09-13T10:53:10.000Z'],
    ]);
    expect(byId(snapshot, id)).toMatchObject({
      resolved: true,
      updatedAt: new Date('2026-09-13T10:53:10Z'),
      resolvedAt: new Date('2026-09-13T10:53:10Z'),
      description: 'All impacted services have now fully recovered.',
    });
  });
});

describe("incidentio reader on any documents shaped like incident.io's", () => {
  const date = fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constant('soon'),
  );
  const incident = fc.record(
    {
      id: fc.oneof(fc.constantFrom('01A', '01B'), fc.string()),
      name: fc.string(),
      status: fc.constantFrom('investigating', 'identified', 'monitoring', 'resolved', 'scheduled', 'in_progress'),
      impact: fc.constantFrom('none', 'minor', 'major', 'critical'),
      shortlink: fc.constant(null),
      created_at: date,
      updated_at: date,
      resolved_at: fc.option(date),
      scheduled_for: date,
      incident_updates: fc.array(fc.record({ status: fc.string(), body: fc.string(), created_at: date, display_at: date }, { requiredKeys: [] }), {
        maxLength: 3,
      }),
    },
    { requiredKeys: ['id', 'name'] },
  );
  const list = fc.option(fc.array(incident, { maxLength: 3 }), { nil: undefined });

  it('gives real dates and one incident or maintenance per id, or refuses the documents', () => {
    const summary = fc.record({
      status: fc.record({ indicator: fc.constantFrom('none', 'minor', 'major', 'critical', 'maintenance') }),
      incidents: list,
      scheduled_maintenances: list,
    });
    fc.assert(
      fc.property(summary, list, (s, l) => {
        try {
          return wellFormed(read(s, { incidents: l }));
        } catch (error) {
          return error instanceof FeedFormatError;
        }
      }),
      { numRuns: 300 },
    );
  });
});
