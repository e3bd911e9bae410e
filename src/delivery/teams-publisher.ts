import { subjectName } from '../domain/notifications/notify-destination.js';
import type { DestinationNotification } from '../domain/notifications/notify-destination.js';
import { failureOf, isSuccess, orderedStream, shownUrl } from './destination-client.js';
import type { DestinationPublisherOptions, Target } from './destination-client.js';
import { destinationSettings } from './destination-store.js';
import { changeText, headline, statusLine } from './notify-text.js';
import type { Delivery, Publisher } from './publisher.js';
import type { PublisherKind } from './publisher-kind.js';

/** The message a Teams Workflows webhook posts: one Adaptive Card (1.4) of the change. */
export function teamsMessage(n: DestinationNotification): Record<string, unknown> {
  const color = n.action === 'resolve' ? 'Good' : n.incident.severity === 'major' ? 'Attention' : 'Warning';
  const text = changeText(n);
  const actions = [
    { type: 'Action.OpenUrl', title: n.monitor ? 'View monitor' : 'View incident', url: n.incident.tracker_url },
    ...(n.incident.status_page_url ? [{ type: 'Action.OpenUrl', title: 'Status page', url: n.incident.status_page_url }] : []),
  ];
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          msteams: { width: 'Full' },
          body: [
            { type: 'TextBlock', text: headline(n), size: 'Small', weight: 'Bolder', color, spacing: 'None' },
            { type: 'TextBlock', text: n.incident.title, size: 'Large', weight: 'Bolder', wrap: true },
            {
              type: 'FactSet',
              facts: [
                { title: 'Status', value: statusLine(n) },
                { title: n.monitor ? 'Monitor' : 'Service', value: subjectName(n) },
              ],
            },
            ...(text ? [{ type: 'TextBlock', text: text, wrap: true }] : []),
          ],
          actions,
        },
      },
    ],
  };
}

/**
 * Microsoft Teams through a Workflows webhook ("Post to a channel when a
 * webhook request is received"): one card per notification. Any 2xx
 * confirms (Workflows answers 202); a 429 or 5xx is tried again.
 */
export function createTeamsPublisher(options: DestinationPublisherOptions): Publisher {
  const settingsOf = destinationSettings(options.ctx, 'teams');
  return {
    ...orderedStream('teams', options.perSecond),
    async deliver(delivery: Delivery) {
      const { webhook } = await settingsOf(delivery.stream);
      // The webhook's query holds its signature: a secret, never shown.
      const query = new URL(webhook).search;
      const target: Target = { url: webhook, shown: shownUrl(webhook), secrets: query ? [query.slice(1)] : [] };
      const response = await options.post(target, teamsMessage(delivery.payload as DestinationNotification), {}, delivery.signal);
      if (isSuccess(response)) return;
      throw failureOf(target, response, response.text.trim() || null);
    },
  };
}

export const teams = {
  kind: 'teams',
  create: ({ ctx, post, limits }) => createTeamsPublisher({ ctx, post, perSecond: limits.perSecond }),
} satisfies PublisherKind<'teams'>;
