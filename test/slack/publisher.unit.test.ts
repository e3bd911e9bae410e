import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDeliveryClient } from '../../adapters/slack/client.js';
import { createSlackPublisher } from '../../adapters/slack/publisher.js';
import { DeliveryFailure } from '../../src/delivery/publisher.js';
import type { Delivery, DeliveryRecorder } from '../../src/delivery/publisher.js';
import type { DigestAnnouncement, IncidentAnnouncement, MonitorAnnouncement } from '../../src/domain/notifications/announcement.js';
import { FAKE_BOT_TOKEN, startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.heal();
});

/** The recorder as the outbox worker keeps it, in memory. */
function memoryRecorder() {
  const messages = new Map<string, string>();
  const steps: [string, string][] = [];
  const recorder: DeliveryRecorder = {
    step: async (name, value) => {
      steps.push([name, value]);
    },
    messageOf: async (channel, subject) => messages.get(`${channel} ${subject}`) ?? null,
    rememberMessage: async (channel, subject, ts) => {
      messages.set(`${channel} ${subject}`, ts);
    },
  };
  return { recorder, steps, messages };
}

const delivery = (payload: unknown, progress: Record<string, string> = {}): Delivery => ({
  id: 1,
  stream: 'slack:T1:C1',
  event: 'x',
  subscriberId: null,
  idempotencyKey: 'statusbot-1-k',
  signal: new AbortController().signal,
  payload,
  body: JSON.stringify(payload),
  attempts: 0,
  progress,
});

const channel = (id: string) => ({ platform: 'slack' as const, workspaceId: 'T1', channelId: id });
const publisher = () => createSlackPublisher({ client: createDeliveryClient({ botToken: FAKE_BOT_TOKEN, slackApiUrl: fake.apiUrl, logger: undefined }) });

const incident = (channelId: string, update: IncidentAnnouncement['update']): IncidentAnnouncement => ({
  kind: 'incident',
  event: 'updated',
  channel: channel(channelId),
  incident: {
    id: 7,
    title: 'Broken <b> & co',
    severity: 'major',
    resolved: false,
    stage: 'identified',
    description: 'uses <script> & more',
    service: { id: 1, name: 'API', urlname: 'api', trackerUrl: 'http://status.test/services/api' },
    url: null,
    trackerUrl: 'http://status.test/incidents/7',
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:05:00.000Z',
    resolvedAt: null,
  },
  update,
});

describe('the Slack publisher', () => {
  it('takes slack streams only, paced at one message per second', () => {
    const p = publisher();
    expect(p.streamPrefix).toBe('slack:');
    expect(p.minIntervalMs('slack:T1:C1')).toBe(1000);
  });

  it('escapes user text in mrkdwn, not in plain text', async () => {
    const { recorder } = memoryRecorder();
    await publisher().deliver(delivery(incident('CESC', null)), recorder);
    const [message] = fake.messages.get('CESC')!;
    expect(message!.blocks).toContainEqual({ type: 'section', text: { type: 'mrkdwn', text: 'uses &lt;script&gt; &amp; more' } });
    expect(message!.text).toBe('Major incident #7: Broken <b> & co (API)');
    expect(message!.blocks![0]).toEqual({ type: 'header', text: { type: 'plain_text', text: '#7 Broken <b> & co' } });
  });

  it('skips the steps a previous attempt confirmed', async () => {
    const { recorder, steps } = memoryRecorder();
    const p = publisher();
    const a = incident('CSTEPS', { stage: 'identified', description: 'found it', createdAt: '2026-11-22T10:05:00.000Z' });
    fake.failNext(1, { status: 500 }, (c) => Boolean(c.body.thread_ts));
    await expect(p.deliver(delivery(a), recorder)).rejects.toThrow(DeliveryFailure);
    expect(steps.map(([name]) => name)).toEqual(['message']);
    await p.deliver(delivery(a, Object.fromEntries(steps)), recorder);
    expect(steps.map(([name]) => name)).toEqual(['message', 'reply']);
    const posted = fake.messages.get('CSTEPS')!;
    expect(posted.map((m) => [m.threadTs === null, m.text])).toEqual([
      [true, 'Major incident #7: Broken <b> & co (API)'],
      [false, '*Identified* — found it'],
    ]);
  });

  it("a deleted incident's message is edited to say so, without buttons or a reply", async () => {
    const { recorder } = memoryRecorder();
    const p = publisher();
    await p.deliver(delivery(incident('CDEL', null)), recorder);
    await p.deliver(delivery({ ...incident('CDEL', null), event: 'deleted' }), recorder);
    const [message, ...others] = fake.messages.get('CDEL')!;
    expect(others).toEqual([]);
    expect(message!.text).toBe('Deleted incident #7: Broken <b> & co (API)');
    expect(message!.blocks!.filter((b) => b.type === 'actions')).toEqual([]);
  });

  it('turns a 429 into a rate-limited failure with its Retry-After, and a 500 into a plain one', async () => {
    const { recorder } = memoryRecorder();
    const p = publisher();
    fake.failNext(1, { status: 429, retryAfterSeconds: 7 });
    const limited = await p.deliver(delivery(incident('C429', null)), recorder).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(DeliveryFailure);
    expect(limited).toMatchObject({ rateLimited: true, retryAfterMs: 7000 });
    fake.failNext(1, { status: 500 });
    const failed = await p.deliver(delivery(incident('C429', null)), recorder).catch((e: unknown) => e);
    expect(failed).toMatchObject({ rateLimited: false, retryAfterMs: null, message: expect.stringContaining('HTTP 500') });
    expect(fake.calls.filter((c) => c.body.channel === 'C429')).toHaveLength(2);
  });

  it('a monitor change is one new message', async () => {
    const { recorder, steps } = memoryRecorder();
    const a: MonitorAnnouncement = {
      kind: 'monitor',
      channel: channel('CMON'),
      monitor: { id: 501, name: 'Homepage', url: 'https://acme.example/' },
      change: 'down',
      description: 'Down in local: HTTP 503',
      region: 'local',
      at: '2026-11-22T10:00:00.000Z',
    };
    await publisher().deliver(delivery(a), recorder);
    await publisher().deliver(delivery(a, Object.fromEntries(steps)), recorder);
    expect(fake.messages.get('CMON')!.map((m) => m.text)).toEqual(['Monitor Homepage is down']);
  });

  it('a heartbeat monitor, which has no address to show, is named alone', async () => {
    const { recorder } = memoryRecorder();
    const a: MonitorAnnouncement = {
      kind: 'monitor',
      channel: channel('CBEAT'),
      monitor: { id: 604, name: 'Nightly backup', url: '' },
      change: 'down',
      description: 'Down in local: no heartbeat since 2026-11-21T09:00:00.000Z',
      region: 'local',
      at: '2026-11-22T10:00:00.000Z',
    };
    await publisher().deliver(delivery(a), recorder);
    const posted = JSON.stringify(fake.messages.get('CBEAT'));
    expect(posted).toContain('Monitor *Nightly backup* is down');
    expect(posted).not.toContain('is down (');
    expect(posted).toContain('no heartbeat since 2026-11-21T09:00:00.000Z');
  });

  it('a digest with edit-in-place edits its one message; without, it posts each time', async () => {
    const { recorder } = memoryRecorder();
    const digest = (editInPlace: boolean, status: 'ok' | 'major'): DigestAnnouncement => ({
      kind: 'digest',
      channel: channel(editInPlace ? 'CDIGEST' : 'CDIGEST2'),
      subscriptionId: 3,
      board: { id: 'b', name: 'Vendors', urlname: 'vendors' },
      editInPlace,
      at: '2026-11-22T09:00:00.000Z',
      services: [
        {
          name: 'Acme Cloud',
          urlname: 'acme-cloud',
          status,
          tags: ['core'],
          trackerUrl: 'http://status.test/services/acme-cloud',
          openIncidents: status === 'ok' ? [] : [{ id: 9, title: 'Outage', severity: 'major', createdAt: '2026-11-22T08:00:00.000Z', url: null }],
        },
      ],
    });
    const p = publisher();
    await p.deliver(delivery(digest(true, 'ok')), recorder);
    await p.deliver(delivery(digest(true, 'major')), recorder);
    const inPlace = fake.messages.get('CDIGEST')!;
    expect(inPlace).toHaveLength(1);
    expect(inPlace[0]!.edits).toBe(1);
    expect(inPlace[0]!.text).toBe('Vendors: 1 of 1 services with issues');
    expect(JSON.stringify(inPlace[0]!.blocks)).toContain('Outage');

    await p.deliver(delivery(digest(false, 'ok')), recorder);
    await p.deliver(delivery(digest(false, 'ok')), recorder);
    expect(fake.messages.get('CDIGEST2')!.map((m) => m.text)).toEqual(['Vendors: all services operational', 'Vendors: all services operational']);
  });
});
