import { alertKeyOf, subjectName } from '../domain/notifications/notify-destination.js';
import type { DestinationNotification } from '../domain/notifications/notify-destination.js';
import { failureOf, isSuccess, jsonOf, orderedStream } from './destination-client.js';
import type { DestinationPublisherOptions, Target } from './destination-client.js';
import { destinationSettings } from './destination-store.js';
import type { Delivery, Publisher } from './publisher.js';
import type { PublisherKind } from './publisher-kind.js';
import { clipText } from '../domain/clip-text.js';

/** An Events API v2 event: `trigger` on open and on each update (the same alert, updated), `resolve` on resolve. */
export function pagerDutyEvent(routingKey: string, n: DestinationNotification): Record<string, unknown> {
  // The alert of an incident (or a monitor incident) at PagerDuty: every trigger of it and its resolve carry this key.
  const dedupKey = alertKeyOf(n);
  if (n.action === 'resolve') return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey };
  const links = [
    { href: n.incident.tracker_url, text: n.monitor ? 'Monitor' : 'Incident on statusbot' },
    ...(n.incident.status_page_url && n.service ? [{ href: n.incident.status_page_url, text: `${n.service.name} status page` }] : []),
  ];
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: clipText(n.incident.title, 1024),
      source: subjectName(n),
      severity: n.incident.severity === 'major' ? 'critical' : 'warning',
      timestamp: n.occurred_at,
      component: n.service?.urlname ?? `monitor-${n.monitor?.id}`,
      custom_details: {
        stage: n.incident.stage,
        description: n.incident.description,
        ...(n.update ? { update: n.update.description } : {}),
      },
    },
    client: 'statusbot',
    client_url: n.incident.tracker_url,
    links,
  };
}

/** What PagerDuty said of a refused event: its message and errors. */
function detailOf(body: Record<string, unknown> | null): string | null {
  if (!body) return null;
  const errors = Array.isArray(body.errors) ? body.errors.filter((e) => typeof e === 'string') : [];
  const parts = [typeof body.message === 'string' ? body.message : null, ...errors].filter((p) => p !== null);
  return parts.length > 0 ? parts.join('; ') : null;
}

/**
 * PagerDuty Events API v2: one POST per notification to the integration's
 * enqueue URL. 202 confirms; a 400 (invalid event) is dead-lettered at once;
 * a 429 or a 5xx is tried again. PagerDuty deduplicates by the incident's key.
 */
export function createPagerDutyPublisher(options: DestinationPublisherOptions): Publisher {
  const settingsOf = destinationSettings(options.ctx, 'pagerduty');
  return {
    ...orderedStream('pagerduty', options.perSecond),
    async deliver(delivery: Delivery) {
      const { url, routing_key } = await settingsOf(delivery.stream);
      const target: Target = { url, shown: url, secrets: [routing_key] };
      const response = await options.post(target, pagerDutyEvent(routing_key, delivery.payload as DestinationNotification), {}, delivery.signal);
      if (isSuccess(response)) return;
      throw failureOf(target, response, detailOf(jsonOf(response)));
    },
  };
}

export const pagerduty = {
  kind: 'pagerduty',
  create: ({ ctx, post, limits }) => createPagerDutyPublisher({ ctx, post, perSecond: limits.perSecond }),
} satisfies PublisherKind<'pagerduty'>;
