import { alertKeyOf, subjectName, threadIdOf } from '../domain/notifications/notify-destination.js';
import type { DestinationNotification } from '../domain/notifications/notify-destination.js';
import { failureOf, isSuccess, jsonOf, orderedStream } from './destination-client.js';
import type { DestinationPublisherOptions, Target } from './destination-client.js';
import { alertPriorityOf, destinationSettings, rememberAlertPriority } from './destination-store.js';
import type { Delivery, Publisher } from './publisher.js';
import type { PublisherKind } from './publisher-kind.js';
import { clipText } from '../domain/clip-text.js';

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The note of an update: its stage and text. */
function noteOf(n: DestinationNotification): string {
  const stage = n.update?.stage ?? n.incident.stage;
  const text = n.update?.description ?? n.incident.description;
  return clipText(`${stage ? `${capitalized(stage)}: ` : ''}${text || n.incident.title}`, 25_000);
}

/** Opsgenie's priority of a severity: a major incident pages (P1), a minor one is P3, Opsgenie's default. */
export const opsgeniePriority = (n: DestinationNotification): 'P1' | 'P3' => (n.incident.severity === 'major' ? 'P1' : 'P3');

/** One call of the Alert API. */
export interface OpsgenieRequest {
  method: 'POST' | 'PUT';
  path: string;
  body: Record<string, unknown>;
}

/** The alert's path at Opsgenie: its notes, priority and close name it by its alias. */
const byAlias = (n: DestinationNotification, action: string): string => `/v2/alerts/${encodeURIComponent(alertKeyOf(n))}/${action}?identifierType=alias`;

/** The request for a notification: create the alert on open, add a note on update, close it on resolve. */
export function opsgenieRequest(n: DestinationNotification): OpsgenieRequest {
  switch (n.action) {
    case 'open':
      return { method: 'POST', path: '/v2/alerts', body: alertOf(n) };
    case 'update':
      return { method: 'POST', path: byAlias(n, 'notes'), body: { note: noteOf(n), source: 'statusbot' } };
    case 'resolve':
      return { method: 'POST', path: byAlias(n, 'close'), body: { note: noteOf(n), source: 'statusbot' } };
  }
}

/** Sets the alert's priority to the incident's severity: the update's note alone would leave a raised incident at P3. */
export const opsgeniePriorityRequest = (n: DestinationNotification): OpsgenieRequest => ({
  method: 'PUT',
  path: byAlias(n, 'priority'),
  body: { priority: opsgeniePriority(n) },
});

function alertOf(n: DestinationNotification): Record<string, unknown> {
  const description = [
    n.incident.description,
    '',
    `${n.monitor ? 'Monitor' : 'Incident'}: ${n.incident.tracker_url}`,
    ...(n.incident.status_page_url ? [`Status page: ${n.incident.status_page_url}`] : []),
  ].join('\n');
  return {
    message: clipText(n.incident.title, 130),
    alias: alertKeyOf(n),
    description: clipText(description, 15_000),
    priority: opsgeniePriority(n),
    source: 'statusbot',
    entity: subjectName(n),
    tags: ['statusbot', n.service?.urlname ?? 'monitor'],
    details: {
      ...(n.service ? { service: n.service.name } : { monitor: subjectName(n) }),
      tracker_url: n.incident.tracker_url,
      ...(n.incident.stage ? { stage: n.incident.stage } : {}),
    },
  };
}

/**
 * Opsgenie's Alert API, with the integration's key (`Authorization: GenieKey`).
 * Opsgenie answers 202 with a requestId and processes the request afterwards;
 * a 4xx (a refused key or request) is dead-lettered at once, a 429 or 5xx tried again.
 * An update whose severity differs from the priority the alert was last given
 * sets the priority first (a PUT, which a retry may repeat), then adds its note.
 */
export function createOpsgeniePublisher(options: DestinationPublisherOptions): Publisher {
  const { ctx } = options;
  const settingsOf = destinationSettings(ctx, 'opsgenie');
  return {
    ...orderedStream('opsgenie', options.perSecond),
    async deliver(delivery: Delivery) {
      const { id, url, api_key } = await settingsOf(delivery.stream);
      const n = delivery.payload as DestinationNotification;
      const send = async ({ method, path, body }: OpsgenieRequest) => {
        const full = `${url.replace(/\/+$/, '')}${path}`;
        const target: Target = { url: full, shown: full, secrets: [api_key], method };
        const response = await options.post(target, body, { authorization: `GenieKey ${api_key}` }, delivery.signal);
        if (isSuccess(response)) return;
        const answer = jsonOf(response);
        throw failureOf(target, response, typeof answer?.message === 'string' ? answer.message : null);
      };
      const priority = opsgeniePriority(n);
      if (n.action === 'update' && (await alertPriorityOf(ctx, id, threadIdOf(n))) !== priority) {
        await send(opsgeniePriorityRequest(n));
        await rememberAlertPriority(ctx, id, threadIdOf(n), priority);
      }
      await send(opsgenieRequest(n));
      if (n.action === 'open') await rememberAlertPriority(ctx, id, threadIdOf(n), priority);
    },
  };
}

export const opsgenie = {
  kind: 'opsgenie',
  create: ({ ctx, post, limits }) => createOpsgeniePublisher({ ctx, post, perSecond: limits.perSecond }),
} satisfies PublisherKind<'opsgenie'>;
