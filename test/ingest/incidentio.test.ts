import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { incidentio } from '../../src/ingest/incidentio.js';
import { FeedFormatError } from '../../src/ingest/vendor-snapshot.js';
import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { fixture, fixtureJson, NOW } from './fixtures.js';
import { wellFormed } from './well-formed.js';

// No captured incident.io documents with incidents could be found: these are built by hand (incidentio/SOURCES.md).
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

describe('incidentio reader on any documents shaped like incident.io\'s', () => {
  const date = fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.constant('soon'));
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
      incident_updates: fc.array(fc.record({ status: fc.string(), body: fc.string(), created_at: date, display_at: date }, { requiredKeys: [] }), { maxLength: 3 }),
    },
    { requiredKeys: ['id', 'name'] },
  );
  const list = fc.option(fc.array(incident, { maxLength: 3 }), { nil: undefined });

  it('gives real dates and one incident or maintenance per id, or refuses the documents', () => {
    const summary = fc.record({ status: fc.record({ indicator: fc.constantFrom('none', 'minor', 'major', 'critical', 'maintenance') }), incidents: list, scheduled_maintenances: list });
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
