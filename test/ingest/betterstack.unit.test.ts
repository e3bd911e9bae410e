import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { betterstack } from '../../src/ingest/betterstack.js';
import { FeedFormatError } from '../../src/ingest/vendor-snapshot.js';
import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { fixture, fixtureJson } from './fixtures.js';
import { wellFormed } from './well-formed.js';

// A page built from Better Stack's documentation, for the edges the captured one does not show (betterstack/SOURCES.md).
const PAGE = 'https://status.example.com';
const BUILT = 'betterstack/index-built-from-docs.json';
const BEFORE_MAINTENANCE = new Date('2025-02-16T15:00:00Z');

function read(body: string | object, now = BEFORE_MAINTENANCE): VendorSnapshot {
  return betterstack.parse([typeof body === 'string' ? body : JSON.stringify(body)], { url: PAGE, now });
}

type Included = Record<string, unknown> & { type: string; id: string; attributes: Record<string, unknown> };

/** The built page, changed as a test needs. */
function page(change: (document: { data: { attributes: Record<string, unknown> }; included: Included[] }) => void): object {
  const document = fixtureJson(BUILT) as { data: { attributes: Record<string, unknown> }; included: Included[] };
  change(document);
  return document;
}

describe('betterstack reader', () => {
  it('reads index.json under the page address', () => {
    expect(betterstack.documents('https://status.example.com/')).toEqual(['https://status.example.com/index.json']);
  });

  it('reads the page status and its resources in Statuspage words, keeping a word it does not map', () => {
    const snapshot = read(fixture(BUILT));
    expect(snapshot.indicator).toBe('minor');
    expect(snapshot.skipped).toEqual([]);
    expect(snapshot.components).toEqual([
      { name: 'API Server', status: 'degraded_performance' },
      { name: 'Database', status: 'operational' },
      { name: 'Website', status: 'not_monitored' },
    ]);
  });

  it('reads a resolved report with its updates oldest first, resolved though its ends_at is null', () => {
    const [resolved] = read(fixture(BUILT)).incidents;
    expect(resolved).toEqual({
      id: '98765',
      title: 'Database Connection Issues',
      severity: 'major',
      severityFromProvider: 'downtime',
      url: PAGE,
      description: 'The database is reachable again.',
      components: ['API Server'],
      createdAt: new Date('2025-02-15T10:30:00.000Z'),
      updatedAt: new Date('2025-02-15T12:10:00.000Z'),
      resolved: true,
      resolvedAt: new Date('2025-02-15T12:10:00.000Z'),
      updates: [
        { stage: 'investigating', description: "We're investigating connection issues with the database", createdAt: new Date('2025-02-15T10:30:00.000Z') },
        { stage: 'investigating', description: "We've identified the issue and are working on a fix", createdAt: new Date('2025-02-15T11:45:00.000Z') },
        { stage: 'resolved', description: 'The database is reachable again.', createdAt: new Date('2025-02-15T12:10:00.000Z') },
      ],
    });
  });

  it('reads an open report as an open minor incident on its resource', () => {
    const open = read(fixture(BUILT)).incidents[1];
    expect(open).toMatchObject({
      id: '98770',
      title: 'Slow API responses',
      severity: 'minor',
      severityFromProvider: 'degraded',
      resolved: false,
      resolvedAt: null,
      components: ['API Server'],
      createdAt: new Date('2025-02-16T14:00:00.000Z'),
      updatedAt: new Date('2025-02-16T14:20:00.000Z'),
      description: 'API responses are slower than usual; we are looking into it.',
    });
  });

  it('keeps a maintenance report as a maintenance: scheduled, then under way, then completed', () => {
    const maintenance = {
      id: '98780',
      name: 'Scheduled Database Upgrade',
      startsAt: new Date('2025-02-17T07:00:00.000Z'),
      endsAt: new Date('2025-02-17T09:00:00.000Z'),
      status: 'scheduled',
      components: ['Database'],
      url: PAGE,
    };
    expect(read(fixture(BUILT)).maintenances).toEqual([maintenance]);
    expect(read(fixture(BUILT), new Date('2025-02-17T08:00:00Z')).maintenances[0]!.status).toBe('in_progress');
    expect(read(fixture(BUILT), new Date('2025-02-17T10:00:00Z')).maintenances[0]!.status).toBe('completed');
    expect(read(fixture(BUILT)).incidents.map((i) => i.id)).not.toContain('98780');
  });

  it.each([
    ['operational', 'ok'],
    ['degraded', 'minor'],
    ['downtime', 'major'],
    ['maintenance', 'maintenance'],
    ['something_new', null],
  ])('maps the aggregate state %s to %s', (state, indicator) => {
    expect(read(page((d) => (d.data.attributes.aggregate_state = state))).indicator).toBe(indicator);
  });

  it('skips a report or update it cannot read, names it, and keeps the others', () => {
    const document = page((d) => {
      d.included.push(
        { type: 'status_report', id: '99000', attributes: { report_type: 'manual' } },
        { type: 'status_update', id: '99001', attributes: { message: 'x', published_at: 'later', affected_resources: [] } },
        { type: 'status_page_section', id: '457', attributes: {} },
      );
    });
    const snapshot = read(document);
    expect(snapshot.incidents.map((i) => i.id)).toEqual(['98765', '98770']);
    expect(snapshot.skipped).toEqual([
      'index.json: status_report[3] (id "99000"): attributes.title is missing',
      'index.json: status_update[5] (id "99001"): attributes.published_at should be a date, got "later"',
    ]);
  });

  it('reads a page with nothing included', () => {
    const snapshot = read({ data: { id: '1', type: 'status_page', attributes: { aggregate_state: 'operational' } }, included: [] });
    expect(snapshot).toEqual({ indicator: 'ok', components: [], incidents: [], maintenances: [], skipped: [] });
  });

  it('refuses an HTML page, and a document without its aggregate state', () => {
    expect(() => read('<!DOCTYPE html><html><body>Status</body></html>')).toThrow(FeedFormatError);
    expect(() => read('<!DOCTYPE html><html><body>Status</body></html>')).toThrow(/^index\.json: an HTML page instead of JSON$/);
    expect(() => read({ data: { attributes: {} }, included: [] })).toThrow(/^index\.json: unexpected content: data\.attributes\.aggregate_state is missing$/);
  });
});

describe("betterstack reader on Better Stack's own captured page", () => {
  const BETTERSTACK = 'https://status.betterstack.com';
  const READ_AT = new Date('2026-09-08T00:00:00Z');
  const snapshot = betterstack.parse([fixture('betterstack/betterstack-index-2026-09-07.json')], { url: BETTERSTACK, now: READ_AT });
  const report = (id: string) => snapshot.incidents.find((i) => i.id === id);

  it('reads an operational page, its resources in Statuspage words, a resource nobody watches as written', () => {
    expect(snapshot.indicator).toBe('ok');
    expect(snapshot.components).toEqual([
      { name: 'Better Stack', status: 'operational' },
      { name: 'Uptime', status: 'operational' },
      { name: 'Uptime backend processing health', status: 'not_monitored' },
    ]);
    expect(snapshot.skipped).toEqual([]);
    expect(wellFormed(snapshot)).toBe(true);
  });

  it('reads a resolved report whose ends_at is null, its updates put in time order, ended by the last', () => {
    expect(report('1050825')).toMatchObject({
      title: 'Delayed data processing in the Europe region',
      // Its resource only ever went degraded.
      severity: 'minor',
      severityFromProvider: 'degraded',
      url: BETTERSTACK,
      createdAt: new Date('2026-09-04T13:50:00.000Z'),
      updatedAt: new Date('2026-09-06T19:13:00.000Z'),
      resolved: true,
      resolvedAt: new Date('2026-09-06T19:13:00.000Z'),
    });
    // The report links its updates out of time order; the page shows them by publication.
    expect(report('1050825')!.updates.map((u) => [u.stage, u.createdAt.toISOString(), u.description.slice(0, 40)])).toEqual([
      ['investigating', '2026-09-04T13:50:00.000Z', "We're seeing delayed data processing for"],
      ['investigating', '2026-09-04T19:53:00.000Z', 'Processing of new data in the Europe reg'],
      ['investigating', '2026-09-05T15:23:00.000Z', 'Live data is coming in. Historical data '],
      ['resolved', '2026-09-06T19:13:00.000Z', 'This incident is now resolved. All sourc'],
    ]);
    expect(report('1050825')!.description).toMatch(/^This incident is now resolved\./);
  });

  it('reads a resolved report whose updates the document does not carry, with no update invented', () => {
    expect(report('1049150')).toMatchObject({ title: 'Delayed data processing in the Europe region', resolved: true, updates: [] });
    expect(snapshot.incidents.map((i) => i.id)).toEqual(['1050825', '1049150']);
  });

  it('keeps a maintenance report apart, completed once resolved, with its window', () => {
    expect(snapshot.maintenances).toEqual([
      {
        id: '1035022',
        name: 'Migrating some Telemetry sources to new infrastructure',
        startsAt: new Date('2026-09-03T00:00:00.000Z'),
        endsAt: new Date('2026-09-03T17:00:00.000Z'),
        status: 'completed',
        // Its resource is one the capture left out of `included`.
        components: [],
        url: BETTERSTACK,
      },
    ]);
  });
});

describe('betterstack reader on any document shaped like index.json', () => {
  const date = fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constant('soon'),
  );
  const id = fc.oneof(fc.constantFrom('1', '2', 1), fc.string());
  const state = fc.constantFrom('operational', 'degraded', 'downtime', 'maintenance', 'resolved', 'not_monitored', 'x');
  const affected = fc.array(fc.record({ status_page_resource_id: id, status: state }), { maxLength: 2 });
  const entry = fc.oneof(
    fc.record({ type: fc.constant('status_page_resource'), id, attributes: fc.record({ public_name: fc.string(), status: state }) }),
    fc.record({
      type: fc.constant('status_report'),
      id,
      attributes: fc.record(
        {
          title: fc.string(),
          report_type: fc.constantFrom('manual', 'automatic', 'maintenance'),
          starts_at: date,
          ends_at: fc.option(date),
          aggregate_state: state,
          affected_resources: affected,
        },
        { requiredKeys: ['title'] },
      ),
      relationships: fc.record({ status_updates: fc.record({ data: fc.array(fc.record({ id }), { maxLength: 3 }) }) }),
    }),
    fc.record({
      type: fc.constant('status_update'),
      id,
      attributes: fc.record({ message: fc.string(), published_at: date, status_report_id: id, affected_resources: affected }, { requiredKeys: [] }),
    }),
  );

  it('gives real dates and one incident or maintenance per id, or refuses the document', () => {
    const document = fc.record({ data: fc.record({ attributes: fc.record({ aggregate_state: state }) }), included: fc.array(entry, { maxLength: 8 }) });
    fc.assert(
      fc.property(document, (d) => {
        try {
          return wellFormed(read(d));
        } catch (error) {
          return error instanceof FeedFormatError;
        }
      }),
      { numRuns: 400 },
    );
  });
});
