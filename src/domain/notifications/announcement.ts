import type { ChannelRef, ChatPlatform } from '../model/channel.js';
import type { IncidentEvent, ResolutionStage, Severity } from '../model/incident.js';
import type { ServiceStatus } from '../model/service.js';
import type { MaintenanceEvent, MaintenanceStatus } from '../model/maintenance.js';
import type { ShownStatus } from '../model/shown-status.js';

/**
 * What a chat channel is told, as plain data stored in the outbox; each chat
 * adapter renders it (Block Kit, embeds). Timestamps are ISO 8601 strings.
 */
export type Announcement =
  | IncidentAnnouncement
  | StatusChangeAnnouncement
  | MonitorAnnouncement
  | DigestAnnouncement
  | MaintenanceAnnouncement
  | RoomOpening
  | RoomFailed
  | RoomSummary;

/** A member of a chat platform (`<@id>` on both). */
export interface ChatMember {
  platform: ChatPlatform;
  userId: string;
}

/** An incident's state, shown by one message per channel that is edited in place. */
export interface IncidentAnnouncement {
  kind: 'incident';
  event: IncidentEvent;
  channel: ChannelRef;
  /**
   * Whose incident: the company's own (its message offers Post update and
   * Resolve), a vendor's as its status page reported it, or one opened from
   * user reports (unconfirmed). Absent in rows queued before vendors were read: `company`.
   */
  source?: 'company' | 'vendor' | 'users';
  incident: {
    id: number;
    title: string;
    severity: Severity;
    resolved: boolean;
    stage: ResolutionStage | null;
    description: string;
    service: { id: number; name: string; urlname: string; trackerUrl: string };
    url: string | null;
    trackerUrl: string;
    /** The vendor's affected components; absent in older rows. */
    components?: string[];
    createdAt: string;
    updatedAt: string;
    resolvedAt: string | null;
    /** Who leads it (`/incident lead`); absent in older rows. */
    lead?: ChatMember | null;
  };
  /** The update this event added, posted as a reply under the message. */
  update: { stage: ResolutionStage; description: string; createdAt: string } | null;
}

/** A service's status changed; one new message. */
export interface StatusChangeAnnouncement {
  kind: 'status_change';
  channel: ChannelRef;
  service: { id: number; name: string; urlname: string; trackerUrl: string };
  from: ServiceStatus;
  to: ServiceStatus;
  at: string;
  /** What caused it, e.g. the incident's title. */
  cause: string | null;
}

/** The chat message that shows an incident in a channel. */
export const incidentSubject = (incidentId: number): string => `incident:${incidentId}`;

/** A custom monitor went down or recovered; one new message. */
export interface MonitorAnnouncement {
  kind: 'monitor';
  channel: ChannelRef;
  monitor: { id: number; name: string; url: string };
  change: 'down' | 'recovered';
  /** e.g. "Down in local: HTTP 503". */
  description: string;
  region: string;
  at: string;
}

/** A board's services with their status, worst first; posted anew, or edited in place when `editInPlace`. */
export interface DigestAnnouncement {
  kind: 'digest';
  channel: ChannelRef;
  subscriptionId: number;
  board: { id: string; name: string; urlname: string };
  editInPlace: boolean;
  at: string;
  services: {
    name: string;
    urlname: string;
    /** `unknown` ("No data") when statusbot does not know it now, with `noData` saying why. */
    status: ShownStatus;
    noData?: string | null;
    tags: string[];
    trackerUrl: string;
    /** `components`: the vendor's affected components (absent in older rows). */
    openIncidents: { id: number; title: string; severity: Severity; createdAt: string; url: string | null; components?: string[] }[];
    /** The vendor's upcoming or ongoing maintenances, as its feed lists them (absent in older rows). */
    maintenances?: { name: string; startsAt: string; endsAt: string | null; url: string | null; components: string[] }[];
  }[];
}

/** The chat message that shows a board's digest in a channel (for edit_in_place). */
export const digestSubject = (subscriptionId: number): string => `digest:${subscriptionId}`;

/** What a chat channel following one of the maintenance's services is told; one new message per event. */
export interface MaintenanceAnnouncement {
  kind: 'maintenance';
  event: MaintenanceEvent;
  channel: ChannelRef;
  maintenance: {
    id: number;
    title: string;
    description: string;
    status: MaintenanceStatus;
    startsAt: string;
    endsAt: string;
    trackerUrl: string;
    services: { id: number; name: string; urlname: string }[];
  };
  update: { status: MaintenanceStatus; description: string; createdAt: string } | null;
}

/**
 * Opens an incident's own channel (or, with `channelId`, only invites into
 * it): delivered as recorded steps, so that a retry never opens a second one.
 */
export interface RoomOpening {
  kind: 'room';
  incidentId: number;
  workspaceId: string;
  /** The channel's name, as the platform allows it. */
  name: string;
  /** Known once opened: the opening only invites. */
  channelId: string | null;
  invite: string[];
  /** Which opening of the incident's room this is (a retry after a failure is the next). */
  attempt: number;
  /** Where the room was asked for, told if it cannot be opened. */
  requestedIn: ChannelRef | null;
}

/** The room could not be opened; one message where it was asked for. */
export interface RoomFailed {
  kind: 'room_failed';
  channel: ChannelRef;
  incidentId: number;
  name: string;
  /** The platform's reason, e.g. `name_taken`, `missing_scope`. */
  reason: string;
}

/** Posted in an incident's room once it is resolved. */
export interface RoomSummary {
  kind: 'room_summary';
  channel: ChannelRef;
  incident: { id: number; title: string; createdAt: string; resolvedAt: string; trackerUrl: string };
  lead: ChatMember | null;
  updates: number;
  notes: number;
}
