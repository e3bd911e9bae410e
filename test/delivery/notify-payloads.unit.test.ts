import { describe, expect, it } from 'vitest';
import type { DestinationNotification } from '../../src/domain/notifications/notify-destination.js';
import { opsgenieRequest } from '../../src/delivery/opsgenie-publisher.js';
import { pagerDutyEvent } from '../../src/delivery/pagerduty-publisher.js';
import { teamsMessage } from '../../src/delivery/teams-publisher.js';
import { escapeHtml, telegramText } from '../../src/delivery/telegram-publisher.js';

const notification = (event: DestinationNotification['event'], over: Partial<DestinationNotification['incident']> = {}): DestinationNotification => {
  const action = event === 'incident.created' || event === 'incident.reopened' ? 'open' : event === 'incident.updated' ? 'update' : 'resolve';
  return {
    action,
    event,
    occurred_at: '2026-11-22T10:02:00.000Z',
    service: { id: 1001, name: 'Acme API', urlname: 'acme-api' },
    incident: {
      id: 7,
      title: 'API down',
      severity: 'major',
      resolved: action === 'resolve',
      stage: action === 'resolve' ? 'resolved' : 'investigating',
      description: 'Requests fail.',
      tracker_url: 'http://status.test/incidents/7',
      status_page_url: null,
      created_at: '2026-11-22T10:00:00.000Z',
      ...over,
    },
    update: action === 'update' ? { stage: 'identified', description: 'Found it' } : null,
  };
};

describe('what each destination is sent, by event', () => {
  const cases = [
    { event: 'incident.created', pagerduty: 'trigger', opsgenie: '/v2/alerts' },
    { event: 'incident.reopened', pagerduty: 'trigger', opsgenie: '/v2/alerts' },
    { event: 'incident.updated', pagerduty: 'trigger', opsgenie: '/v2/alerts/statusbot-7/notes?identifierType=alias' },
    { event: 'incident.resolved', pagerduty: 'resolve', opsgenie: '/v2/alerts/statusbot-7/close?identifierType=alias' },
    { event: 'incident.deleted', pagerduty: 'resolve', opsgenie: '/v2/alerts/statusbot-7/close?identifierType=alias' },
  ] as const;
  for (const c of cases) {
    it(`${c.event}: PagerDuty ${c.pagerduty}, Opsgenie ${c.opsgenie}`, () => {
      const n = notification(c.event);
      const event = pagerDutyEvent('KEY', n);
      expect(event).toMatchObject({ routing_key: 'KEY', event_action: c.pagerduty, dedup_key: 'statusbot-7' });
      expect(opsgenieRequest(n).path).toBe(c.opsgenie);
    });
  }

  it('PagerDuty summaries and Opsgenie messages are cut to the lengths the APIs take', () => {
    const n = notification('incident.created', { title: 'x'.repeat(2_000) });
    expect((pagerDutyEvent('KEY', n).payload as { summary: string }).summary).toHaveLength(1024);
    expect((opsgenieRequest(n).body as { message: string }).message).toHaveLength(130);
  });

  it('Telegram text escapes what HTML would read, and stays within 4096 characters', () => {
    expect(escapeHtml('<b> & "q"')).toBe('&lt;b&gt; &amp; &quot;q&quot;');
    const long = telegramText(notification('incident.created', { description: '<'.repeat(10_000) }));
    expect(long.length).toBeLessThanOrEqual(4096 * 4);
    expect(long.replace(/&lt;/g, '<').length).toBeLessThanOrEqual(4096);
  });

  it('a Teams card links the status page when the service has one', () => {
    const card = teamsMessage(notification('incident.created', { status_page_url: 'https://status.acme.example' })) as any;
    expect(card.attachments[0].content.actions.map((a: { title: string }) => a.title)).toEqual(['View incident', 'Status page']);
  });
});
