import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { salesforce } from '../../src/ingest/salesforce.js';
import { FeedFormatError } from '../../src/ingest/vendor-snapshot.js';
import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { fixture, NOW } from './fixtures.js';
import { wellFormed } from './well-formed.js';

const PREVIEW = 'https://api.status.salesforce.com/v1/instances/status/preview';
const LOCALIZATIONS = fixture('salesforce/localizations.json');

type Instance = Record<string, unknown> & { key: string; status: string; Incidents: unknown[]; Maintenances: unknown[] };

function read(instances: string | readonly object[], localizations = LOCALIZATIONS): VendorSnapshot {
  const body = typeof instances === 'string' ? instances : JSON.stringify(instances);
  return salesforce.parse([body, localizations], { url: PREVIEW, now: NOW });
}

/** The captured preview, changed as a test needs. */
function captured(change: (instances: Instance[]) => void = () => {}): Instance[] {
  const instances = JSON.parse(fixture('salesforce/instances-status-preview.json')) as Instance[];
  change(instances);
  return instances;
}

/** An instance of the shape the API gives, with the incidents and maintenances a test needs (hand-written). */
function instance(key: string, status: string, Incidents: object[] = [], Maintenances: object[] = []): object {
  return { key, location: 'NA', environment: 'production', status, isActive: true, Products: [], Incidents, Maintenances, Tags: [] };
}

/** An incident of the shape of the captured one (hand-written). */
function incident(id: number, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    externalId: `0${id}`,
    message: { pathToResolution: null, actionPlan: null, rootCause: null },
    isCore: true,
    affectsAll: false,
    createdAt: '2026-08-10T09:20:00.000Z',
    updatedAt: '2026-08-10T09:20:00.000Z',
    IncidentImpacts: [{ id: id + 1, startTime: '2026-08-10T09:00:00.000Z', endTime: null, type: 'performanceDegradation', severity: 'minor' }],
    IncidentEvents: [],
    instanceKeys: ['NA1'],
    serviceKeys: ['coreService'],
    ...fields,
  };
}

describe('Salesforce Trust reader', () => {
  it('reads the instances preview and the localizations that name what an incident is', () => {
    expect(salesforce.documents(PREVIEW)).toEqual([PREVIEW, 'https://api.status.salesforce.com/v1/localizations']);
  });

  it('reads the captured preview: NA137 degraded, its open incident named and explained from the localizations', () => {
    const snapshot = read(fixture('salesforce/instances-status-preview.json'));
    expect(snapshot.indicator).toBe('minor');
    expect(snapshot.skipped).toEqual([]);
    expect(snapshot.components).toEqual([]);
    expect(snapshot.maintenances).toEqual([]);
    expect(snapshot.incidents).toEqual([
      {
        id: '5968',
        title: 'Performance Degradation - Asynchronous Processing',
        severity: 'minor',
        severityFromProvider: 'minor',
        url: null,
        description:
          'The Salesforce Technology Team is working to isolate a performance degradation issue on this instance. A subset of customers may experience delays in asynchronous processing including Web-to-Case, Web-to-Lead, Email-to-Case and dashboard refreshes.',
        components: ['NA137'],
        // The impact began hours before the incident was posted.
        createdAt: new Date('2020-07-29T16:08:00.000Z'),
        updatedAt: new Date('2020-07-29T19:04:35.523Z'),
        resolved: false,
        resolvedAt: null,
        updates: [],
      },
    ]);
  });

  it('says Salesforce is up when every captured instance is OK, and lists no incident', () => {
    const snapshot = read(
      captured((all) =>
        all.splice(
          all.findIndex((i) => i.key === 'NA137'),
          1,
        ),
      ),
    );
    expect(snapshot.indicator).toBe('ok');
    expect(snapshot.incidents).toEqual([]);
  });

  it("keeps the incident when the localizations cannot name it: its impact's own word is its title", () => {
    const snapshot = read(fixture('salesforce/instances-status-preview.json'), '[]');
    expect(snapshot.incidents.map((i) => [i.title, i.description])).toEqual([['performanceDegradationAsynchronousProcessingSubset', '']]);
  });

  it('reads the posted updates oldest first, their stage from the label of their type, their text or else the type’s own', () => {
    const events = [
      {
        id: 3,
        type: 'update',
        message: 'Error rates are back to normal levels.',
        createdAt: '2026-08-10T11:00:00.000Z',
        updatedAt: '2026-08-10T11:00:00.000Z',
      },
      { id: 2, type: 'issueIsolatedDatabaseTier', message: null, createdAt: '2026-08-10T10:00:00.000Z', updatedAt: '2026-08-10T10:00:00.000Z' },
      {
        id: 1,
        type: 'investigatingCauseOfIssue',
        message: 'Users on NA1 may see errors.',
        createdAt: '2026-08-10T09:30:00.000Z',
        updatedAt: '2026-08-10T09:30:00.000Z',
      },
    ];
    const [read1] = read([instance('NA1', 'MINOR_INCIDENT_CORE', [incident(7, { IncidentEvents: events })])]).incidents;
    expect(read1?.updates).toEqual([
      { stage: 'investigating', description: 'Users on NA1 may see errors.', createdAt: new Date('2026-08-10T09:30:00.000Z') },
      {
        stage: 'identified',
        description: 'We have isolated the issue to the database tier and are continuing to determine the best path to resolution.',
        createdAt: new Date('2026-08-10T10:00:00.000Z'),
      },
      // `update` is labelled Update: the stage before it holds.
      { stage: 'identified', description: 'Error rates are back to normal levels.', createdAt: new Date('2026-08-10T11:00:00.000Z') },
    ]);
    expect(read1?.description).toBe('Error rates are back to normal levels.');
    expect(read1?.updatedAt).toEqual(new Date('2026-08-10T11:00:00.000Z'));
  });

  it('resolves an incident once every impact has ended, at the last end', () => {
    const impacts = [
      { id: 1, startTime: '2026-08-10T09:00:00.000Z', endTime: '2026-08-10T09:40:00.000Z', type: 'performanceDegradation', severity: 'minor' },
      { id: 2, startTime: '2026-08-10T09:30:00.000Z', endTime: null, type: 'serviceDisruption', severity: 'major' },
    ];
    const open = read([instance('NA1', 'MAJOR_INCIDENT_CORE', [incident(7, { IncidentImpacts: impacts })])]);
    expect(open.indicator).toBe('major');
    expect(open.incidents[0]).toMatchObject({ severity: 'major', resolved: false, resolvedAt: null, createdAt: new Date('2026-08-10T09:00:00.000Z') });

    const ended = [impacts[0], { ...impacts[1], endTime: '2026-08-10T10:15:00.000Z' }];
    const closed = read([instance('NA1', 'OK', [incident(7, { IncidentImpacts: ended })])]);
    expect(closed.indicator).toBe('ok');
    expect(closed.incidents[0]).toMatchObject({ resolved: true, resolvedAt: new Date('2026-08-10T10:15:00.000Z') });
  });

  it('lists an incident that touches several instances once, with every instance it touches', () => {
    const shared = incident(7, { instanceKeys: ['NA2', 'NA1'] });
    const snapshot = read([instance('NA1', 'MINOR_INCIDENT_CORE', [shared]), instance('NA2', 'MINOR_INCIDENT_CORE', [shared])]);
    expect(snapshot.incidents.map((i) => [i.id, i.components])).toEqual([['7', ['NA1', 'NA2']]]);
  });

  it("takes the worst instance's status; a major incident of a non-core service leaves Salesforce degraded, not down", () => {
    expect(read([instance('NA1', 'OK'), instance('NA2', 'MAJOR_INCIDENT_NONCORE')]).indicator).toBe('minor');
    expect(read([instance('NA1', 'MAINTENANCE_CORE'), instance('NA2', 'OK')]).indicator).toBe('maintenance');
    expect(read([instance('NA1', 'MAINTENANCE_CORE'), instance('NA2', 'MINOR_INCIDENT_NONCORE')]).indicator).toBe('minor');
    // A word statusbot does not know says nothing, unless a known one already says something is wrong.
    expect(read([instance('NA1', 'OK'), instance('NA2', 'SOMETHING_NEW')]).indicator).toBeNull();
    expect(read([instance('NA1', 'MINOR_INCIDENT_CORE'), instance('NA2', 'SOMETHING_NEW')]).indicator).toBe('minor');
    expect(read([]).indicator).toBeNull();
  });

  it('reads a maintenance by its planned window: scheduled in Salesforce’s word, under way once an impact began, completed once all ended', () => {
    const maintenance = {
      id: 636660,
      message: { maintenanceType: 'release', eventStatus: 'confirmed' },
      name: '23.4 B2C GA - Tuesday April 4, 2023',
      plannedStartTime: '2026-08-25T06:00:00.000Z',
      plannedEndTime: '2026-08-25T11:00:00.000Z',
      MaintenanceImpacts: [],
      MaintenanceEvents: [],
      instanceKeys: ['POD114'],
    };
    const upcoming = read([instance('POD114', 'OK', [], [maintenance])]).maintenances;
    expect(upcoming).toEqual([
      {
        id: '636660',
        name: '23.4 B2C GA - Tuesday April 4, 2023',
        startsAt: new Date('2026-08-25T06:00:00.000Z'),
        endsAt: new Date('2026-08-25T11:00:00.000Z'),
        status: 'confirmed',
        components: ['POD114'],
        url: null,
      },
    ]);
    const begun = { ...maintenance, MaintenanceImpacts: [{ id: 1, startTime: '2026-08-19T06:00:00.000Z', endTime: null, type: 'restart' }] };
    expect(read([instance('POD114', 'MAINTENANCE_CORE', [], [begun])]).maintenances[0]?.status).toBe('in_progress');
    const done = { ...maintenance, MaintenanceImpacts: [{ id: 1, startTime: '2026-08-19T06:00:00.000Z', endTime: '2026-08-19T07:00:00.000Z' }] };
    expect(read([instance('POD114', 'OK', [], [done])]).maintenances[0]?.status).toBe('completed');
  });

  it('skips what it cannot read, naming it, and reads the rest', () => {
    const badImpact = incident(8, { IncidentImpacts: [{ id: 9, startTime: 'soon', endTime: null, type: 'performanceDegradation', severity: 'minor' }] });
    const badEvent = incident(7, { IncidentEvents: [{ id: 1, type: 'update', message: 'No date.' }] });
    const snapshot = read([{ status: 'OK', Incidents: [] }, instance('NA1', 'MINOR_INCIDENT_CORE', [badImpact, badEvent])]);
    expect(snapshot.incidents.map((i) => [i.id, i.updates.length])).toEqual([['7', 0]]);
    expect(snapshot.skipped).toEqual([
      'instances/status/preview: [0]: key is missing',
      'instances/status/preview: [1] NA1: Incidents[0] (id "8"): IncidentImpacts[0].startTime should be a date, got "soon"',
      'instances/status/preview: [1] NA1: Incidents[1] (id "7"): IncidentEvents[0] (id "1"): createdAt is missing',
    ]);
  });

  it('refuses a document that is not the list of instances', () => {
    expect(() => read('<html><body>Maintenance</body></html>')).toThrow(FeedFormatError);
    expect(() => read('{"message":"Not Found"}')).toThrow(/instances\/status\/preview: unexpected content/);
    expect(() => read([], '<html></html>')).toThrow(/localizations: an HTML page instead of JSON/);
  });

  it('reads any document of the API’s shape into a snapshot the domain can apply', () => {
    const range = { noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2100-01-01') };
    const date = fc.oneof(
      fc.date(range).map((d) => d.toISOString()),
      fc.constant('soon'),
      fc.constant(null),
    );
    const id = fc.oneof(fc.constantFrom(1, 2), fc.string());
    const impact = fc.record(
      { startTime: date, endTime: date, type: fc.constantFrom('performanceDegradation', 'x'), severity: fc.constantFrom('minor', 'major', 7) },
      { requiredKeys: [] },
    );
    const event = fc.record(
      { id: fc.integer(), type: fc.constantFrom('update', 'monitoringGeneric', 'nope'), message: fc.option(fc.string()), createdAt: date },
      { requiredKeys: [] },
    );
    const anIncident = fc.record(
      {
        id,
        createdAt: date,
        updatedAt: date,
        IncidentImpacts: fc.array(impact, { maxLength: 3 }),
        IncidentEvents: fc.array(event, { maxLength: 3 }),
        instanceKeys: fc.array(fc.string(), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    );
    const aMaintenance = fc.record(
      { id, name: fc.string(), plannedStartTime: date, plannedEndTime: date, MaintenanceImpacts: fc.array(impact, { maxLength: 2 }) },
      { requiredKeys: [] },
    );
    const anInstance = fc.record(
      {
        key: fc.string(),
        status: fc.constantFrom('OK', 'MAJOR_INCIDENT_CORE', 'MAINTENANCE_NONCORE', 'odd'),
        Incidents: fc.array(anIncident, { maxLength: 3 }),
        Maintenances: fc.array(aMaintenance, { maxLength: 2 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(anInstance, { maxLength: 4 }), (instances) => {
        try {
          return wellFormed(read(instances));
        } catch (error) {
          return error instanceof FeedFormatError;
        }
      }),
      { numRuns: 300 },
    );
  });
});
