import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slack } from '../../src/ingest/slack.js';
import { FeedFormatError } from '../../src/ingest/vendor-snapshot.js';
import type { VendorSnapshot } from '../../src/ingest/vendor-snapshot.js';
import { fixture, NOW } from './fixtures.js';
import { wellFormed } from './well-formed.js';

const BASE = 'https://slack-status.com';
const TWO_ACTIVE = fixture('slack/current-two-active.json');
const OK = fixture('slack/current-ok-documented.json');

function read(current: string | object, history: string | object = []): VendorSnapshot {
  const text = (body: string | object) => (typeof body === 'string' ? body : JSON.stringify(body));
  return slack.parse([text(current), text(history)], { url: BASE, now: NOW });
}

// History items are written by hand in the item shape Slack documents for both endpoints (see slack/SOURCES.md).
const notificationsResolved = {
  id: 878,
  date_created: '2020-07-30T15:12:34-07:00',
  date_updated: '2020-07-30T17:02:10-07:00',
  title: 'We are investigating an issue with notification settings',
  type: 'incident',
  status: 'resolved',
  url: 'https://status.slack.com/2020-07/ea58a170d343b2ad',
  services: ['Notifications'],
  notes: [
    { date_created: '2020-07-30T17:02:10-07:00', body: '<p>Mobile notification settings are <b>respected</b> again.</p>' },
    { date_created: '2020-07-30T15:12:34-07:00', body: 'Some users might notice that their notifications settings for mobile are not being respected.' },
  ],
};

function active(changes: Record<string, unknown>) {
  return { ...notificationsResolved, id: 900, status: 'active', notes: [notificationsResolved.notes[1]], ...changes };
}

describe('slack reader', () => {
  it('reads current and history under the base address', () => {
    expect(slack.documents('https://slack-status.com/')).toEqual([
      'https://slack-status.com/api/v2.0.0/current',
      'https://slack-status.com/api/v2.0.0/history',
    ]);
  });

  it("reads Slack's captured answer with two active incidents as Slack's page shows them", () => {
    const snapshot = read(TWO_ACTIVE);
    expect(snapshot.indicator).toBe('minor');
    expect(snapshot.skipped).toEqual([]);
    expect(snapshot.maintenances).toEqual([]);
    expect(snapshot.incidents.map((i) => [i.id, i.title, i.resolved, i.components])).toEqual([
      ['878', 'We are investigating an issue with notification settings', false, ['Notifications']],
      ['879', "We're looking into an issue with certain API calls", false, ['Apps/Integrations/APIs']],
    ]);
    const [notifications] = snapshot.incidents;
    expect(notifications).toMatchObject({
      severity: 'minor',
      severityFromProvider: 'incident',
      url: 'https://status.slack.com/2020-07/ea58a170d343b2ad',
      createdAt: new Date('2020-07-30T22:12:34Z'),
      updatedAt: new Date('2020-07-30T22:12:34Z'),
      resolvedAt: null,
    });
    expect(notifications!.description).toMatch(/^Some users might notice that their notifications settings for mobile are not being respected\./);
    expect(notifications!.updates).toEqual([{ stage: 'investigating', description: notifications!.description, createdAt: new Date('2020-07-30T22:12:34Z') }]);
  });

  it('reads the documented all-clear answer as ok with nothing open', () => {
    expect(read(OK)).toEqual({ indicator: 'ok', components: [], incidents: [], maintenances: [], skipped: [] });
  });

  it("resolves an incident with Slack's own closing note and time once history lists it closed", () => {
    const snapshot = read(OK, [notificationsResolved]);
    expect(snapshot.indicator).toBe('ok');
    const [incident] = snapshot.incidents;
    expect(incident).toMatchObject({
      id: '878',
      resolved: true,
      createdAt: new Date('2020-07-30T22:12:34Z'),
      resolvedAt: new Date('2020-07-31T00:02:10Z'),
      description: 'Mobile notification settings are respected again.',
    });
    expect(incident!.updates.map((u) => [u.stage, u.createdAt.toISOString()])).toEqual([
      ['investigating', '2020-07-30T22:12:34.000Z'],
      ['resolved', '2020-07-31T00:02:10.000Z'],
    ]);
  });

  it('keeps the later copy when current still lists an item that history already closed', () => {
    const staleActive = { ...notificationsResolved, status: 'active', date_updated: '2020-07-30T15:12:34-07:00' };
    const snapshot = read({ status: 'active', active_incidents: [staleActive] }, [notificationsResolved]);
    expect(snapshot.incidents).toHaveLength(1);
    expect(snapshot.incidents[0]!.resolved).toBe(true);
    expect(snapshot.indicator).toBe('minor');
  });

  it.each([
    [[active({ type: 'outage' })], 'major'],
    [[active({ type: 'incident' }), active({ id: 901, type: 'outage' })], 'major'],
    [[active({ type: 'incident' })], 'minor'],
    [[active({ type: 'notice' })], 'ok'],
    [[active({ type: 'maintenance' })], 'maintenance'],
    [[active({ type: 'maintenance', status: 'scheduled' })], 'ok'],
    [[], 'minor'],
  ])('reads status active with %j as %s', (items, indicator) => {
    expect(read({ status: 'active', active_incidents: items }).indicator).toBe(indicator);
  });

  it('gives an outage the major severity and keeps a maintenance out of the incidents', () => {
    const snapshot = read({
      status: 'active',
      active_incidents: [active({ type: 'outage' }), active({ id: 902, type: 'maintenance', title: 'Database upgrade' })],
    });
    expect(snapshot.incidents.map((i) => [i.id, i.severity])).toEqual([['900', 'major']]);
    expect(snapshot.maintenances).toEqual([
      {
        id: '902',
        name: 'Database upgrade',
        startsAt: new Date('2020-07-30T22:12:34Z'),
        endsAt: null,
        status: 'active',
        components: ['Notifications'],
        url: 'https://status.slack.com/2020-07/ea58a170d343b2ad',
      },
    ]);
  });

  it('ends a completed maintenance when Slack closed it', () => {
    const done = { ...notificationsResolved, id: 903, type: 'maintenance', status: 'completed' };
    expect(read(OK, [done]).maintenances[0]).toMatchObject({ status: 'completed', endsAt: new Date('2020-07-31T00:02:10Z') });
  });

  it('skips an item it cannot read, names it, and keeps the others', () => {
    const current = JSON.parse(TWO_ACTIVE) as { active_incidents: unknown[] };
    current.active_incidents.push({ id: 5, title: 'Broken dates', date_created: 'soon' }, 'not an item');
    const snapshot = read(current, [{ title: 'no id' }]);
    expect(snapshot.incidents.map((i) => i.id)).toEqual(['878', '879']);
    expect(snapshot.skipped).toEqual([
      'current: active_incidents[2] (id "5"): date_created should be a date, got "soon"',
      'current: active_incidents[3]: the item should be an object',
      'history[0]: id is missing',
    ]);
  });

  it('says nothing of a status word it does not know', () => {
    expect(read({ status: 'purple', active_incidents: [] }).indicator).toBeNull();
  });

  it('refuses an HTML page, and a document without its status', () => {
    const html = '<!DOCTYPE html><html><body>Slack is down</body></html>';
    expect(() => read(html)).toThrow(FeedFormatError);
    expect(() => read(html)).toThrow(/^current: an HTML page instead of JSON$/);
    expect(() => read(OK, html)).toThrow(/^history: an HTML page instead of JSON$/);
    expect(() => read({ active_incidents: [] })).toThrow(/^current: unexpected content: status is missing$/);
    expect(() => read(OK, { items: [] })).toThrow(/^history: unexpected content: the document should be an array$/);
  });
});

describe('slack reader on any document shaped like Slack’s', () => {
  const date = fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2020-07-30T15:12:34-07:00', 'soon'),
  );
  const word = fc.constantFrom('incident', 'outage', 'notice', 'maintenance', 'active', 'resolved', 'scheduled', 'completed', 'cancelled', 'ok', 'x');
  const slackItem = fc.record(
    {
      id: fc.oneof(fc.constantFrom(1, 2, '1'), fc.string()),
      date_created: date,
      date_updated: date,
      title: fc.string(),
      type: word,
      status: word,
      url: fc.option(fc.string()),
      services: fc.array(fc.string(), { maxLength: 3 }),
      notes: fc.array(fc.record({ date_created: date, body: fc.string() }, { requiredKeys: [] }), { maxLength: 3 }),
    },
    { requiredKeys: ['title'] },
  );

  it('gives real dates and one incident or maintenance per id, or refuses the document', () => {
    const current = fc.record({ status: word, active_incidents: fc.array(slackItem, { maxLength: 4 }) });
    fc.assert(
      fc.property(current, fc.array(slackItem, { maxLength: 4 }), (c, h) => {
        let snapshot: VendorSnapshot;
        try {
          snapshot = read(c, h);
        } catch (error) {
          return error instanceof FeedFormatError;
        }
        return wellFormed(snapshot);
      }),
      { numRuns: 400 },
    );
  });
});
