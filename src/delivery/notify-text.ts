import type { DestinationNotification } from '../domain/notifications/notify-destination.js';

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** `Resolved`, or the stage and severity: `Investigating · major`. */
export function statusLine(n: DestinationNotification): string {
  if (n.monitor) return n.incident.resolved || n.action === 'resolve' ? 'Recovered' : 'Down';
  if (n.incident.resolved || n.action === 'resolve') return n.event === 'incident.deleted' ? 'Deleted' : 'Resolved';
  const stage = n.update?.stage ?? n.incident.stage;
  return `${stage ? `${capitalized(stage)} · ` : ''}${n.incident.severity}`;
}

/** What the message says of the change: the update it posted, else the incident's description. */
export const changeText = (n: DestinationNotification): string => n.update?.description ?? n.incident.description;

/** The headline of a message: what happened to the incident (or the monitor). */
export function headline(n: DestinationNotification): string {
  switch (n.event) {
    case 'monitor.down':
      return 'Monitor down';
    case 'monitor.recovered':
      return 'Monitor recovered';
    case 'incident.created':
      return 'New incident';
    case 'incident.reopened':
      return 'Incident reopened';
    case 'incident.updated':
      return 'Incident update';
    case 'incident.resolved':
      return 'Incident resolved';
    case 'incident.deleted':
      return 'Incident deleted';
  }
}
