import type { Selectable } from 'kysely';
import type { IncidentsTable } from '../../../db/schema.js';
import type { MonitorEvent } from '../../notifications/notify-destination.js';
import type { Incident, IncidentEvent } from '../../model/incident.js';
import type { StoredUpdate } from '../incident-repository.js';

/** Who made a change; it decides nothing of its consequences but how chat labels the incident. */
export type ChangeSource = 'api' | 'chat' | 'vendor' | 'users' | 'demo' | 'alerts' | 'monitors';

/** An incident as stored, and its timeline when the source read it (null: read back where needed). */
export interface StoredIncident {
  row: Selectable<IncidentsTable>;
  updates: StoredUpdate[] | null;
}

/** What a source makes an incident: every stored field but its id and service. */
export type IncidentDraft = Omit<Selectable<IncidentsTable>, 'id' | 'service_id'>;

export interface ProposedChange {
  /** As stored; null for a new incident. */
  before: StoredIncident | null;
  /** Null to delete it. */
  after: IncidentDraft | null;
  /** Updates this change posts, oldest first; with `rewriteTimeline`, the whole timeline. */
  posted: StoredUpdate[];
  rewriteTimeline?: boolean;
  /** Stored but told to nobody: a vendor's edit of an incident that is over, a description that counts reports anew. */
  quiet?: boolean;
  /**
   * What was so before anyone could see it change: a feed's incidents at its
   * first read, the outages the demo writes ahead. Stored, told to nobody,
   * and left out of the audit trail, which says who changed what.
   */
  seeded?: boolean;
}

/** A change as made: the incident as it now reads. */
export interface MadeChange {
  event: IncidentEvent;
  incident: Incident;
}

/** A change as stored, with what its consequences are told from. */
export interface StoredChange extends MadeChange {
  /** Told to nobody (see ProposedChange.quiet and seeded). */
  quiet: boolean;
  /** The updates it posted, oldest first. */
  posted: StoredUpdate[];
  before: Selectable<IncidentsTable> | null;
  /** Null once deleted. */
  after: Selectable<IncidentsTable> | null;
}

/** A custom monitor, as its incidents name it. */
export interface WatchedMonitor {
  id: number;
  companyId: number;
  name: string;
  url: string;
}

/**
 * A custom monitor going down (which opens its monitor incident) or
 * recovering (which resolves every open one), as its regions' quorum decided.
 */
export interface MonitorIncidentChange {
  monitor: WatchedMonitor;
  event: MonitorEvent;
  /** Down: the failure, the new incident's description ("Down in eu: HTTP 500"); recovered: "Up again in eu". */
  note: string;
  /** The region or regions that saw it, as announcements name them. */
  region: string;
  /** The monitor's status before and after, for the audit trail. */
  status: { from: 'ok' | 'down'; to: 'ok' | 'down' };
  /** Why it is down, for the audit trail; absent when it recovered. */
  reason?: string;
}

/** A monitor incident as the change left it. */
export interface StoredMonitorIncident {
  id: number;
  description: string;
  created_at: number;
}

/** Incidents that go for good, and why: the pipeline removes them with what removal needs. */
export type IncidentRemoval =
  /** Retention: resolved incidents, or monitor incidents, older than `retention_days`. */
  | { cause: 'expired'; kind: 'incidents' | 'monitor_incidents'; ids: readonly number[] }
  /** A company going away: every incident of its services and of its monitors goes first. */
  | { cause: 'owner_removed'; company: number }
  /** Services going away: every incident of theirs goes first. */
  | { cause: 'owner_removed'; services: readonly number[] };
