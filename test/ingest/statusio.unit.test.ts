import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { statusio } from '../../src/ingest/statusio.js';
import { FeedFormatError } from '../../src/ingest/vendor-snapshot.js';
import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { fixture, fixtureJson, NOW } from './fixtures.js';
import { wellFormed } from './well-formed.js';

const GITLAB = 'https://api.status.io/1.0/status/5b36dc6502d06804c08349f7';
const DOCKER = 'https://api.status.io/1.0/status/533c6539221ae15e3f000031';

function read(body: string | object, url = GITLAB): VendorSnapshot {
  return statusio.parse([typeof body === 'string' ? body : JSON.stringify(body)], { url, now: NOW });
}

type Result = Record<string, unknown> & { status_overall: Record<string, unknown>; incidents: unknown[] };

/** A captured document, changed as a test needs. */
function withResult(name: string, change: (result: Result) => void): object {
  const document = fixtureJson(`statusio/${name}`) as { result: Result };
  change(document.result);
  return document;
}

describe('status.io reader', () => {
  it('reads the API address itself', () => {
    expect(statusio.documents(GITLAB)).toEqual([GITLAB]);
  });

  it("reads Docker's captured partial disruption: the page status, the broken component and its open incident", () => {
    const snapshot = read(fixture('statusio/docker-partial-disruption.json'), DOCKER);
    expect(snapshot.indicator).toBe('minor');
    expect(snapshot.skipped).toEqual([]);
    expect(snapshot.components).toContainEqual({ name: 'Docker Hub Automated Builds', status: 'partial_outage' });
    expect(snapshot.components).toContainEqual({ name: 'Docker Hub Registry', status: 'operational' });
    expect(snapshot.components.filter((c) => c.status !== 'operational')).toHaveLength(1);
    expect(snapshot.incidents).toEqual([
      {
        id: '5f108cc06e9c9104c0553a46',
        title: 'Docker Hub automated builds issue',
        severity: 'minor',
        severityFromProvider: 'partial_outage',
        url: null,
        description: 'We are investigating reports of automated builds getting stuck or not getting triggered.',
        components: ['Docker Hub Automated Builds'],
        createdAt: new Date('2020-07-16T17:22:08.325Z'),
        updatedAt: new Date('2020-07-16T17:22:08.369Z'),
        resolved: false,
        resolvedAt: null,
        updates: [
          {
            stage: 'investigating',
            description: 'We are investigating reports of automated builds getting stuck or not getting triggered.',
            createdAt: new Date('2020-07-16T17:22:08.369Z'),
          },
        ],
      },
    ]);
    expect(snapshot.maintenances).toEqual([]);
  });

  it("reads GitLab's captured maintenance, and lets the incident open beside it outrank it", () => {
    const snapshot = read(fixture('statusio/gitlab-maintenance.json'));
    expect(snapshot.indicator).toBe('minor');
    expect(snapshot.components).toContainEqual({ name: 'dashboards.gitlab.com', status: 'under_maintenance' });
    expect(snapshot.maintenances).toEqual([
      {
        id: '5f4e8b7f2250a004bc3453da',
        name: 'Maintenance on dashboards.gitlab.com',
        startsAt: new Date('2020-09-02T17:55:00.000Z'),
        endsAt: new Date('2020-09-07T17:55:00.000Z'),
        status: 'in_progress',
        components: ['dashboards.gitlab.com'],
        url: null,
      },
    ]);
    const [incident] = snapshot.incidents;
    expect(incident).toMatchObject({ title: '500 Error - User Notification Settings', components: ['Website'], resolved: false });
    expect(incident!.updates.map((u) => [u.stage, u.createdAt.toISOString()])).toEqual([
      ['identified', '2020-09-04T21:56:00.000Z'],
      ['identified', '2020-09-05T09:23:23.591Z'],
    ]);
    expect(incident!.description).toMatch(/^We've determined that the error .* only occurs when/);
  });

  it('reads the same page as maintenance once no incident is open', () => {
    expect(read(withResult('gitlab-maintenance.json', (r) => (r.incidents = []))).indicator).toBe('maintenance');
  });

  it("reads GitLab's captured security event as major, on the components it names", () => {
    const snapshot = read(fixture('statusio/gitlab-security.json'));
    expect(snapshot.indicator).toBe('major');
    expect(snapshot.components.filter((c) => c.status === 'security_event').map((c) => c.name)).toEqual([
      'Website',
      'API',
      'Git (ssh and https)',
      'Registry',
      'CI/CD',
    ]);
    expect(snapshot.incidents[0]).toMatchObject({
      severity: 'major',
      severityFromProvider: 'security_event',
      components: ['Website', 'API', 'Git (ssh and https)', 'Registry', 'CI/CD'],
      createdAt: new Date('2020-02-07T15:51:25.249Z'),
      updatedAt: new Date('2020-02-09T18:42:33.493Z'),
    });
  });

  it.each([
    [100, 'ok'],
    [200, 'maintenance'],
    [300, 'minor'],
    [400, 'minor'],
    [500, 'major'],
    [600, 'major'],
    [700, null],
  ])('maps the overall code %s to %s when nothing is open', (code, indicator) => {
    const document = withResult('docker-partial-disruption.json', (r) => {
      r.status_overall = { ...r.status_overall, status_code: code };
      r.incidents = [];
    });
    expect(read(document).indicator).toBe(indicator);
  });

  it('skips an incident or component it cannot read, names it, and keeps the others', () => {
    const document = withResult('gitlab-maintenance.json', (r) => {
      r.incidents.push({ _id: 'abc', name: 'Broken', datetime_open: 'yesterday' });
      (r.status as unknown[]).push({ status_code: 100 });
    });
    const snapshot = read(document);
    expect(snapshot.incidents.map((i) => i.id)).toEqual(['5f52b8074ef75804bc7d2c3e']);
    expect(snapshot.components).toHaveLength(15);
    expect(snapshot.skipped).toEqual([
      'status: status[15]: name is missing',
      'status: incidents[1] (name "Broken"): datetime_open should be a date, got "yesterday"',
    ]);
  });

  it('reads a page with nothing open and no maintenance lists', () => {
    const snapshot = read({ result: { status_overall: { status_code: 100, status: 'Operational' }, status: [], incidents: [] } });
    expect(snapshot).toEqual({ indicator: 'ok', components: [], incidents: [], maintenances: [], skipped: [] });
  });

  it('refuses an HTML page, and a document without the overall status', () => {
    expect(() => read('<html><body>Not found</body></html>')).toThrow(FeedFormatError);
    expect(() => read('<html><body>Not found</body></html>')).toThrow(/^status: an HTML page instead of JSON$/);
    expect(() => read({ result: { status: [] } })).toThrow(/^status: unexpected content: result\.status_overall is missing$/);
  });
});

describe("status.io reader on any document shaped like status.io's", () => {
  const date = fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constant('soon'),
  );
  const code = fc.oneof(fc.constantFrom(100, 200, 300, 400, 500, 600, '400'), fc.integer());
  const named = fc.record({ name: fc.string(), _id: fc.string() });
  const event = fc.record(
    {
      _id: fc.oneof(fc.constantFrom('a', 'b'), fc.string()),
      name: fc.string(),
      datetime_open: date,
      datetime_planned_start: date,
      datetime_planned_end: date,
      messages: fc.array(fc.record({ details: fc.string(), state: code, status: code, datetime: date }, { requiredKeys: [] }), { maxLength: 3 }),
      components_affected: fc.array(named, { maxLength: 2 }),
    },
    { requiredKeys: ['name'] },
  );
  const component = fc.record(
    { name: fc.string(), status_code: code, containers: fc.array(fc.record({ name: fc.string(), status_code: code })) },
    { requiredKeys: [] },
  );

  it('gives real dates and one incident or maintenance per id, or refuses the document', () => {
    const document = fc.record({
      result: fc.record({
        status_overall: fc.record({ status_code: code, status: fc.string() }),
        status: fc.array(component, { maxLength: 3 }),
        incidents: fc.array(event, { maxLength: 4 }),
        maintenance: fc.record({ active: fc.array(event, { maxLength: 3 }), upcoming: fc.array(event, { maxLength: 3 }) }),
      }),
    });
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
