import { describe, expect, it } from 'vitest';
import { gcp } from '../../src/ingest/gcp.js';
import type { VendorIncident } from '../../src/ingest/vendor-snapshot.js';
import { fixture, NOW } from './fixtures.js';

const FEED = 'https://status.cloud.google.com/incidents.json';

function read(body: string): VendorIncident[] {
  const snapshot = gcp.parse([body], { url: FEED, now: NOW });
  expect(snapshot).toMatchObject({ indicator: null, components: [], maintenances: [] });
  return snapshot.incidents;
}

type Json = Record<string, unknown>;
const captured = (): Json[] => JSON.parse(fixture('gcp-incidents.json')) as Json[];

describe('gcp reader', () => {
  it('fetches the feed address itself', () => {
    expect(gcp.documents(FEED)).toEqual([FEED]);
  });

  it("reads Google Cloud's captured incidents field by field", () => {
    const incidents = read(fixture('gcp-incidents.json'));
    expect(incidents.map((i) => i.id)).toEqual(['3BvH3LVGcupoYqV6F4Nw', 'T8gmtofFSTGT5tbhyciF']);
    const [cooling] = incidents;
    expect(cooling).toMatchObject({
      title:
        'Google Cloud VMware Engine (GCVE), Google Cloud NetApp Volumes, and Bare Metal Solutions (BMS) services are experiencing a service outage in europe-west4-a due to a cooling failure.',
      severity: 'minor',
      severityFromProvider: 'medium',
      url: 'https://status.cloud.google.com/incidents/3BvH3LVGcupoYqV6F4Nw',
      components: ['Bare Metal Solution', 'Google Cloud NetApp Volumes', 'VMWare engine'],
      createdAt: new Date('2026-07-15T23:57:00Z'),
      updatedAt: new Date('2026-07-25T13:16:55Z'),
      resolved: true,
      resolvedAt: new Date('2026-07-16T12:25:00Z'),
    });
    expect(cooling!.description).toMatch(/^## \\# Incident Report\n## \\#\\# Summary\nOn Wednesday, 15 July 2026/);
    const updates = cooling!.updates;
    expect(updates).toHaveLength(12);
    expect(updates[0]!.createdAt).toEqual(new Date('2026-07-16T03:30:59Z'));
    expect(updates[0]!.description).toMatch(/^\*\*Summary\*\*\nGoogle Cloud VMware Engine/);
    expect(updates.map((u) => u.stage)).toEqual([...Array<string>(10).fill('investigating'), 'resolved', 'resolved']);
    expect(updates[11]!.createdAt).toEqual(new Date('2026-07-25T13:16:55Z'));
    expect(updates[11]!.description).toBe(cooling!.description);
  });

  it('reads a stretched-cluster incident as resolved from its first AVAILABLE update on', () => {
    const stretched = read(fixture('gcp-incidents.json'))[1]!;
    expect(stretched.components).toEqual(['VMWare engine']);
    expect(stretched.updates.map((u) => [u.stage, u.createdAt.toISOString()]).slice(7, 9)).toEqual([
      ['investigating', '2026-07-15T03:27:54.000Z'],
      ['resolved', '2026-07-15T05:34:26.000Z'],
    ]);
  });

  it.each([
    ['high', 'major'],
    ['medium', 'minor'],
    ['low', 'minor'],
    ['unheard-of', 'minor'],
  ])('maps severity %s to %s, keeping the word', (word, severity) => {
    const [first] = captured();
    const [incident] = read(JSON.stringify([{ ...first, severity: word }]));
    expect([incident!.severity, incident!.severityFromProvider]).toEqual([severity, word]);
  });

  it('reads an incident without end as open, and one without uri as having no address', () => {
    const [first] = captured();
    const { end: _end, uri: _uri, ...open } = first!;
    const [incident] = read(JSON.stringify([open]));
    expect([incident!.resolved, incident!.resolvedAt, incident!.url]).toEqual([false, null, null]);
  });

  it('reads SERVICE_OUTAGE and SERVICE_INFORMATION as investigating, an unknown status as the stage before', () => {
    const at = (h: number): string => `2026-07-16T0${h}:00:00+00:00`;
    const updates = [
      { when: at(4), status: 'SOMETHING_NEW', text: 'd' },
      { when: at(3), status: 'AVAILABLE', text: 'c' },
      { when: at(2), status: 'SERVICE_INFORMATION', text: 'b' },
      { when: at(1), status: 'SERVICE_OUTAGE', text: 'a' },
    ];
    const [incident] = read(JSON.stringify([{ id: 'x', external_desc: 'X', begin: at(1), updates }]));
    expect(incident!.updates.map((u) => [u.description, u.stage])).toEqual([
      ['a', 'investigating'],
      ['b', 'investigating'],
      ['c', 'resolved'],
      ['d', 'resolved'],
    ]);
    expect(incident!.description).toBe('d');
  });
});

describe('gcp reader on more captured incidents and broken items', () => {
  it("reads Google's BigQuery incident: low severity, SERVICE_INFORMATION, ended", () => {
    const [incident, ...rest] = read(fixture('json/gcp-bigquery-incident.json'));
    expect(rest).toEqual([]);
    expect(incident).toMatchObject({
      id: 'rZvZvSKVdDHyWh4dZJ8D',
      title: 'Retry errors for Google BigQuery in europe-north1',
      severity: 'minor',
      severityFromProvider: 'low',
      url: 'https://status.cloud.google.com/incidents/rZvZvSKVdDHyWh4dZJ8D',
      components: ['Google BigQuery'],
      createdAt: new Date('2023-03-10T14:09:43Z'),
      updatedAt: new Date('2023-03-10T14:54:50Z'),
      resolved: true,
      resolvedAt: new Date('2023-03-10T14:54:50Z'),
    });
    expect(incident!.updates).toEqual([
      {
        stage: 'investigating',
        description: expect.stringMatching(/^Summary: Retry errors for Google BigQuery in europe-north1\n/),
        createdAt: new Date('2023-03-10T14:26:17Z'),
      },
    ]);
  });

  it('skips an incident with an unreadable end and names it, reading the other', () => {
    const [cooling, stretched] = captured();
    const snapshot = gcp.parse([JSON.stringify([{ ...cooling, end: 'yesterday' }, stretched])], { url: FEED, now: NOW });
    expect(snapshot.skipped).toEqual(['incidents.json: [0] (id "3BvH3LVGcupoYqV6F4Nw"): end should be a date, got "yesterday"']);
    expect(snapshot.incidents.map((i) => [i.id, i.resolved])).toEqual([['T8gmtofFSTGT5tbhyciF', true]]);
  });

  it('skips one unreadable update or product of an incident, keeping the incident, and reads odd optional fields as absent', () => {
    const [cooling] = captured();
    const updates = [...(cooling!.updates as Json[])];
    updates[2] = { ...updates[2], when: 'soon' };
    const products = [...(cooling!.affected_products as Json[]), { id: 'x' }];
    const changed = { ...cooling, updates, affected_products: products, severity: 3, uri: null, most_recent_update: 'n/a' };
    const snapshot = gcp.parse([JSON.stringify([changed])], { url: FEED, now: NOW });
    expect(snapshot.skipped).toEqual([
      'incidents.json: [0] (id "3BvH3LVGcupoYqV6F4Nw"): updates[2]: when should be a date, got "soon"',
      'incidents.json: [0] (id "3BvH3LVGcupoYqV6F4Nw"): affected_products[3] (id "x"): title is missing',
    ]);
    const [incident] = snapshot.incidents;
    expect(incident).toMatchObject({
      severity: 'minor',
      severityFromProvider: null,
      url: null,
      resolved: true,
      components: ['Bare Metal Solution', 'Google Cloud NetApp Volumes', 'VMWare engine'],
    });
    expect(incident!.updates).toHaveLength(11);
  });
});
