import { alertKeyOf, subjectName } from '../domain/notifications/notify-destination.js';
import type { DestinationNotification } from '../domain/notifications/notify-destination.js';
import { failureOf, isSuccess, jsonOf, orderedStream } from './destination-client.js';
import type { DestinationPublisherOptions, Target } from './destination-client.js';
import { destinationSettings } from './destination-store.js';
import type { Delivery, Publisher } from './publisher.js';

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The note of an update: its stage and text. */
function noteOf(n: DestinationNotification): string {
  const stage = n.update?.stage ?? n.incident.stage;
  const text = n.update?.description ?? n.incident.description;
  return `${stage ? `${capitalized(stage)}: ` : ''}${text || n.incident.title}`.slice(0, 25_000);
}

/** The request for a notification: create the alert on open, add a note on update, close it on resolve. */
export function opsgenieRequest(n: DestinationNotification): { path: string; body: Record<string, unknown> } {
  // The alias of the alert at Opsgenie: its notes and its close name the alert by it.
  const alias = alertKeyOf(n);
  const byAlias = `/v2/alerts/${encodeURIComponent(alias)}`;
  switch (n.action) {
    case 'open':
      return {
        path: '/v2/alerts',
        body: {
          message: n.incident.title.slice(0, 130),
          alias,
          description: [
            n.incident.description,
            '',
            `${n.monitor ? 'Monitor' : 'Incident'}: ${n.incident.tracker_url}`,
            ...(n.incident.status_page_url ? [`Status page: ${n.incident.status_page_url}`] : []),
          ]
            .join('\n')
            .slice(0, 15_000),
          priority: n.incident.severity === 'major' ? 'P1' : 'P3',
          source: 'statusbot',
          entity: subjectName(n),
          tags: ['statusbot', n.service?.urlname ?? 'monitor'],
          details: {
            ...(n.service ? { service: n.service.name } : { monitor: subjectName(n) }),
            tracker_url: n.incident.tracker_url,
            ...(n.incident.stage ? { stage: n.incident.stage } : {}),
          },
        },
      };
    case 'update':
      return { path: `${byAlias}/notes?identifierType=alias`, body: { note: noteOf(n), source: 'statusbot' } };
    case 'resolve':
      return { path: `${byAlias}/close?identifierType=alias`, body: { note: noteOf(n), source: 'statusbot' } };
  }
}

/**
 * Opsgenie's Alert API, with the integration's key (`Authorization: GenieKey`).
 * Opsgenie answers 202 with a requestId and processes the request afterwards;
 * a 4xx (a refused key or request) is dead-lettered at once, a 429 or 5xx tried again.
 */
export function createOpsgeniePublisher(options: DestinationPublisherOptions): Publisher {
  const settingsOf = destinationSettings(options.ctx, 'opsgenie');
  return {
    ...orderedStream('opsgenie', options.perSecond),
    async deliver(delivery: Delivery) {
      const { url, api_key } = await settingsOf(delivery.stream);
      const { path, body } = opsgenieRequest(delivery.payload as DestinationNotification);
      const full = `${url.replace(/\/+$/, '')}${path}`;
      const target: Target = { url: full, shown: full, secrets: [api_key] };
      const response = await options.post(target, body, { authorization: `GenieKey ${api_key}` }, delivery.signal);
      if (isSuccess(response)) return;
      const answer = jsonOf(response);
      throw failureOf(target, response, typeof answer?.message === 'string' ? answer.message : null);
    },
  };
}
