import type { Kysely, Expression } from 'kysely';
import type { Database, NotifyKind } from '../../db/schema.js';
import type { Incident, IncidentEvent } from '../model/incident.js';
import type { OutboxRow } from './enqueue.js';

export type { NotifyKind };

export const NOTIFY_KINDS = ['pagerduty', 'opsgenie', 'teams', 'telegram'] as const satisfies readonly NotifyKind[];

export const DEFAULT_PAGERDUTY_URL = 'https://events.pagerduty.com/v2/enqueue';
export const DEFAULT_OPSGENIE_URL = 'https://api.opsgenie.com';
export const DEFAULT_TELEGRAM_API_URL = 'https://api.telegram.org';

/** A paging or chat destination as the config declares it; routing_key, api_key and bot_token are secrets. */
export type NotifyDestinationSpec =
  | { kind: 'pagerduty'; routing_key: string; url: string }
  | { kind: 'opsgenie'; api_key: string; url: string }
  | { kind: 'teams'; webhook: string }
  | { kind: 'telegram'; bot_token: string; chat_id: string; api_url: string };

/** What a destination's publisher reads of it: its settings, by kind. */
export type DestinationSettings<K extends NotifyKind> = Omit<Extract<NotifyDestinationSpec, { kind: K }>, 'kind'>;

export type DestinationRow = { id: number; kind: NotifyKind };

/** A destination's stream: its kind and row id, never a secret (`outbox list` shows it). */
export const destinationStream = (kind: NotifyKind, id: number): string => `${kind}:${id}`;

/** The company's destinations; order by `id`. */
export const destinationsOfCompanyQuery = (db: Kysely<Database>, company: number | Expression<number>) =>
  db.selectFrom('notify_destinations').select(['notify_destinations.id', 'notify_destinations.kind']).where('notify_destinations.company_id', '=', company);

/**
 * What a destination is told of a change of an incident: `open` (created, or
 * reopened), `update`, or `resolve` (resolved, or deleted: nothing stays open
 * for it). Stored as the outbox row's payload, without any secret.
 */
export interface DestinationNotification {
  action: 'open' | 'update' | 'resolve';
  event: `incident.${IncidentEvent}` | `monitor.${MonitorEvent}`;
  occurred_at: string;
  /** Null for a custom monitor's failure: a monitor watches an address, not a service. */
  service: { id: number; name: string; urlname: string } | null;
  incident: {
    id: number;
    title: string;
    severity: Incident['status'];
    resolved: boolean;
    stage: string | null;
    description: string;
    /** The incident's page on statusbot. */
    tracker_url: string;
    /** The service's status page, when it has one. */
    status_page_url: string | null;
    created_at: string;
  };
  /** The update the change posted, if any. */
  update: { stage: string; description: string } | null;
  /**
   * Set when the notification is of a custom monitor's failure: `incident` is
   * then its monitor incident (its own ids, apart from incidents').
   */
  monitor?: { id: number; name: string; url: string | null };
}

/** What happens to a custom monitor that a destination is told of. */
export type MonitorEvent = 'down' | 'recovered';

/**
 * The key of the alert a destination keeps for an incident or a monitor
 * incident (PagerDuty's dedup_key, Opsgenie's alias): every message of it
 * carries it; the two kinds of ids never meet.
 */
export const alertKeyOf = (n: DestinationNotification): string => (n.monitor ? `statusbot-monitor-incident-${n.incident.id}` : `statusbot-${n.incident.id}`);

/** The id a destination's messages of one incident are threaded under (see notify_messages): negative for monitor incidents. */
export const threadIdOf = (n: DestinationNotification): number => (n.monitor ? -n.incident.id : n.incident.id);

/** What a notification is about, as messages name it: the service, else the monitor. */
export const subjectName = (n: DestinationNotification): string => n.service?.name ?? n.monitor?.name ?? '';

/** The outbox rows telling each destination the same notification. */
const rowsFor = (destinations: readonly DestinationRow[], companyId: number, payload: DestinationNotification, now: number): OutboxRow[] =>
  destinations.map((d) => ({ companyId, subscriberId: null, stream: destinationStream(d.kind, d.id), event: payload.event, payload, now }));

/** One outbox row per destination of the company, of a custom monitor going down or recovering. */
export function monitorDestinationRows(
  destinations: readonly DestinationRow[],
  args: {
    companyId: number;
    event: MonitorEvent;
    monitor: { id: number; name: string; url: string | null };
    incident: { id: number; description: string; createdAt: number };
    /** Where people look at the monitor. */
    url: string;
    /** What the change says: the failure's description when down, "Up again in eu" when recovered. */
    note: string;
    now: number;
  },
): OutboxRow[] {
  if (destinations.length === 0) return [];
  const { monitor, incident, now } = args;
  const down = args.event === 'down';
  const payload: DestinationNotification = {
    action: down ? 'open' : 'resolve',
    event: `monitor.${args.event}`,
    occurred_at: new Date(now).toISOString(),
    service: null,
    incident: {
      id: incident.id,
      title: `${monitor.name} is down`,
      severity: 'major',
      resolved: !down,
      stage: null,
      description: incident.description,
      tracker_url: args.url,
      status_page_url: null,
      created_at: new Date(incident.createdAt).toISOString(),
    },
    update: down ? null : { stage: 'resolved', description: args.note },
    monitor,
  };
  return rowsFor(destinations, args.companyId, payload, now);
}

const ACTIONS: Record<IncidentEvent, DestinationNotification['action']> = {
  created: 'open',
  reopened: 'open',
  updated: 'update',
  resolved: 'resolve',
  deleted: 'resolve',
};

/** One outbox row per destination of the company, of a change of one of its incidents. */
export function destinationRows(
  destinations: readonly DestinationRow[],
  args: { companyId: number; event: IncidentEvent; incident: Incident; posted: boolean; now: number },
): OutboxRow[] {
  if (destinations.length === 0) return [];
  const { incident, event, now } = args;
  const latest = incident.updates.at(-1) ?? null;
  const payload: DestinationNotification = {
    action: ACTIONS[event],
    event: `incident.${event}`,
    occurred_at: new Date(now).toISOString(),
    service: { id: incident.serviceId, name: incident.serviceName, urlname: incident.serviceUrlname },
    incident: {
      id: incident.id,
      title: incident.title,
      severity: incident.status,
      resolved: incident.resolved,
      stage: latest?.stage ?? null,
      description: incident.description,
      tracker_url: incident.trackerUrl,
      status_page_url: incident.serviceStatusUrl,
      created_at: incident.createdAt.toISOString(),
    },
    update: args.posted && latest ? { stage: latest.stage, description: latest.description } : null,
  };
  return rowsFor(destinations, args.companyId, payload, now);
}
