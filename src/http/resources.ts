import type { AlertBatch } from '../domain/alerts/alert-intake.js';
import type { AuditEvent } from '../domain/audit/audit-trail.js';
import type { Board, BoardService } from '../domain/model/board.js';
import type { Incident, IncidentSummary } from '../domain/model/incident.js';
import type { Maintenance } from '../domain/model/maintenance.js';
import type { Monitor, MonitorIncident } from '../domain/monitors/monitor.js';
import type { Service, ServiceDetail } from '../domain/model/service.js';
import type { UserReport } from '../domain/vendors/user-reports.js';
import type {
  AlertBatchResource,
  AuditEventResource,
  BoardResource,
  BoardServiceResource,
  IncidentResource,
  MaintenanceResource,
  MonitorIncidentResource,
  MonitorResource,
  ServiceDetailResource,
  ServiceIncidentResource,
  ServiceResource,
  UpdatedIncidentResource,
  UserReportResource,
} from './api-schemas.js';

/**
 * Domain objects in the exact shapes of spec section 2; ids are strings, timestamps ISO 8601 UTC.
 * The types are those of api-schemas.ts, which the API description is generated from.
 */

const iso = (d: Date): string => d.toISOString();
const isoOrNull = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** 2.1 */
export const serviceResource = (s: Service): ServiceResource => ({
  id: String(s.id),
  type: 'service',
  attributes: { name: s.name, urlname: s.urlname, tracker_url: s.trackerUrl },
});

/** 2.1 with the current status and status page, and the feed's health, for `GET /services/{service_name}`. */
export const serviceStatusResource = (s: ServiceDetail): ServiceDetailResource => ({
  id: String(s.id),
  type: 'service',
  attributes: {
    name: s.name,
    urlname: s.urlname,
    tracker_url: s.trackerUrl,
    status: s.status,
    status_page_url: s.statusPageUrl,
    last_checked_at: isoOrNull(s.lastCheckedAt),
    feed_error: s.feedError,
  },
});

/** 2.2: `tags` sits beside `attributes`. */
export const boardServiceResource = (s: BoardService): BoardServiceResource => ({
  id: String(s.id),
  type: 'service',
  attributes: {
    name: s.name,
    status: s.status,
    status_page_url: s.statusPageUrl,
    severity_from_provider: false,
    tracker_url: s.trackerUrl,
  },
  tags: s.tags,
});

/** A report of a problem with a service (`POST /services/{service_name}/reports`). */
export const userReportResource = (r: UserReport): UserReportResource => ({
  id: String(r.id),
  type: 'user_report',
  attributes: { service: r.service.urlname, created_at: iso(r.createdAt) },
});

/** 2.3 */
export const serviceIncidentResource = (i: IncidentSummary): ServiceIncidentResource => ({
  id: String(i.id),
  type: 'incident',
  attributes: {
    url: i.url,
    title: i.title,
    description: i.description,
    status: i.status,
    resolved: i.resolved,
    created_at: iso(i.createdAt),
    resolved_at: isoOrNull(i.resolvedAt),
    service: i.serviceName,
    user_generated: i.userGenerated,
    components: i.components,
  },
});

const updates = (i: Incident): IncidentResource['attributes']['updates'] =>
  i.updates.map((u) => ({ status: u.stage, created_at: iso(u.createdAt), description: u.description }));

/** 2.4 */
export const incidentResource = (i: Incident): IncidentResource => ({
  id: String(i.id),
  type: 'incidents',
  attributes: {
    url: i.url,
    title: i.title,
    description: i.description,
    status: i.status,
    resolved: i.resolved,
    created_at: iso(i.createdAt),
    resolved_at: isoOrNull(i.resolvedAt),
    updated_at: iso(i.updatedAt),
    service_id: i.serviceId,
    service: i.serviceName,
    service_status_url: i.serviceStatusUrl,
    service_urlname: i.serviceUrlname,
    user_generated: i.userGenerated,
    severity_from_provider: i.severityFromProvider,
    components: i.components,
    updates: updates(i),
    tracker_url: i.trackerUrl,
  },
});

/** 2.4, the reduced field set of the update operation's response. */
export const updatedIncidentResource = (i: Incident): UpdatedIncidentResource => ({
  id: String(i.id),
  type: 'incidents',
  attributes: {
    title: i.title,
    description: i.description,
    status: i.status,
    resolved: i.resolved,
    created_at: iso(i.createdAt),
    resolved_at: isoOrNull(i.resolvedAt),
    updated_at: iso(i.updatedAt),
    service_id: i.serviceId,
    service: i.serviceName,
    updates: updates(i),
    tracker_url: i.trackerUrl,
  },
});

/** 2.6; `custom_monitor_url` only in the per-monitor list. */
export const monitorIncidentResource = (i: MonitorIncident, withMonitorUrl: boolean): MonitorIncidentResource => ({
  id: String(i.id),
  type: 'custom_monitor_incident',
  attributes: {
    description: i.description,
    created_at: iso(i.createdAt),
    resolved_at: isoOrNull(i.resolvedAt),
    updated_at: iso(i.updatedAt),
    resolved: i.resolved,
    ...(withMonitorUrl ? { custom_monitor_url: i.monitorUrl } : {}),
  },
});

/** 2.5 */
export const monitorResource = (m: Monitor): MonitorResource => ({
  id: String(m.id),
  type: 'custom_monitor',
  attributes: {
    name: m.name,
    status: m.status,
    url: m.url,
    probe_type: m.probeType,
    ...(m.pushUrl === null ? {} : { push_url: m.pushUrl }),
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    ongoing_incidents: { data: m.ongoingIncidents.map((i) => monitorIncidentResource(i, false)) },
  },
});

/** 2.7 */
export const boardResource = (b: Board): BoardResource => ({
  id: b.id,
  type: 'board',
  attributes: {
    name: b.name,
    urlname: b.urlname,
    services: b.services.map((s) => ({ name: s.name, urlname: s.urlname, tags: s.tags })),
  },
});

/** An audit event (statusbot's own, not in the spec). */
export const auditEventResource = (e: AuditEvent): AuditEventResource => ({
  id: String(e.id),
  type: 'audit_event',
  attributes: {
    occurred_at: iso(e.at),
    actor: e.actor,
    action: e.action,
    target: { type: e.targetType, id: e.targetId },
    request_id: e.requestId,
    changes: e.changes,
  },
});

/** What an alert notification did, statusbot's own resource. */
export const alertBatchResource = (b: AlertBatch): AlertBatchResource => ({
  type: 'alert_batch',
  attributes: { incidents: b.incidents.map(String) },
});

/** A maintenance, statusbot's own resource. */
export const maintenanceResource = (m: Maintenance): MaintenanceResource => ({
  id: String(m.id),
  type: 'maintenance',
  attributes: {
    title: m.title,
    description: m.description,
    status: m.status,
    starts_at: iso(m.startsAt),
    ends_at: iso(m.endsAt),
    service_ids: m.services.map((s) => s.id),
    services: m.services.map((s) => s.name),
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    updates: m.updates.map((u) => ({ status: u.status, created_at: iso(u.createdAt), description: u.description })),
    tracker_url: m.trackerUrl,
  },
});
