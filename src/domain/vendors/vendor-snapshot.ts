import type { FeedKind } from '../../db/schema.js';
import type { ResolutionStage, Severity } from '../model/incident.js';
import type { ServiceStatus } from '../model/service.js';

/**
 * What one read of a vendor's status feed says, whatever the feed's kind: the
 * same shape from every parser, so that one domain call applies them all.
 */
export interface VendorSnapshot {
  /**
   * The status the feed itself states (Statuspage's `status.indicator`, with a
   * maintenance in progress already taken into account); null for feeds that
   * state none (RSS, Atom, Google Cloud): then the worst open incident decides.
   */
  indicator: ServiceStatus | null;
  /** The vendor's components and their status as the feed words it (e.g. `operational`, `major_outage`). */
  components: VendorComponent[];
  /** Every incident the feed lists, open or resolved. An open incident missing from a later snapshot has ended. */
  incidents: VendorIncident[];
  /** Maintenances the feed lists: scheduled, in progress, or completed. */
  maintenances: VendorMaintenance[];
  /**
   * The items the reader left out because it could not read them, each said in
   * one line (`incidents.json: incidents[3] (id "abc"): resolved_at should be a date`);
   * the rest of the document is read all the same.
   */
  skipped: string[];
}

export interface VendorComponent {
  name: string;
  status: string;
}

export interface VendorIncident {
  /** The provider's own id (Statuspage id, RSS guid, Atom id, GCP id): the key across polls. */
  id: string;
  title: string;
  /** The provider's impact as statusbot's severity: none/minor/low/medium → minor, major/critical/high → major. */
  severity: Severity;
  /** The provider's own impact word, as given (e.g. `critical`, `high`); null when it gives none. */
  severityFromProvider: string | null;
  /** The incident's page at the provider (Statuspage `shortlink`, else `{page}/incidents/{id}`; an item's link). */
  url: string | null;
  /** The latest update's text. */
  description: string;
  /** Names of the affected components. */
  components: string[];
  createdAt: Date;
  updatedAt: Date;
  resolved: boolean;
  resolvedAt: Date | null;
  /** The provider's updates, oldest first; each one's stage where the provider's status is one of the four (postmortem → resolved). */
  updates: VendorUpdate[];
  /**
   * True when the feed gives the incident no date: its times are the read's,
   * and the stored incident keeps the times it was first seen with until its
   * own content (title, text, resolution, updates) changes.
   */
  undated?: boolean;
}

export interface VendorUpdate {
  stage: ResolutionStage;
  description: string;
  createdAt: Date;
}

export interface VendorMaintenance {
  id: string;
  name: string;
  startsAt: Date;
  endsAt: Date | null;
  /** The provider's own status word (`scheduled`, `in_progress`, `verifying`, `completed`). */
  status: string;
  /** Names of the components it touches. */
  components: string[];
  /** Its page at the provider, when known. */
  url: string | null;
}

/** The kinds of feed statusbot reads. */
export type { FeedKind };
export const FEED_KINDS = [
  'statuspage',
  'rss',
  'atom',
  'gcp',
  'instatus',
  'slack',
  'statusio',
  'betterstack',
  'incidentio',
  'salesforce',
] as const satisfies readonly FeedKind[];
