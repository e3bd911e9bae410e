import { z } from 'zod';
import { BOARD_ID } from '../domain/model/board.js';
import { RESOLUTION_STAGES, SEVERITIES } from '../domain/model/incident.js';
import { MAINTENANCE_STATUSES } from '../domain/model/maintenance.js';
import { DNS_RECORDS, PROBE_TYPES } from '../domain/monitors/monitor.js';
import type { MonitorStatus } from '../domain/monitors/monitor.js';
import type { ServiceStatus } from '../domain/model/service.js';
import type { ErrorObject } from './http-errors.js';

/**
 * The shapes the API answers with (spec section 2 and 7), as zod schemas: the
 * API description (openapi.ts) is generated from them, and resources.ts builds
 * values of their types. Every schema registered here becomes a named schema of
 * the description.
 */
export const apiSchemas = z.registry<{ id: string }>();

function named<S extends z.ZodType>(id: string, schema: S): S {
  apiSchemas.add(schema, { id });
  return schema;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const timestamp = z
  .string()
  .regex(ISO_MS)
  .meta({ format: 'date-time', examples: ['2026-11-22T10:00:00.000Z'] });
const numericId = z
  .string()
  .regex(/^(?:0|[1-9][0-9]*)$/)
  .describe('A numeric id, as a string');
const url = z.url();

const SERVICE_STATUSES = ['ok', 'minor', 'major', 'maintenance'] as const satisfies readonly ServiceStatus[];
const MONITOR_STATUSES = ['ok', 'down'] as const satisfies readonly MonitorStatus[];
const serviceStatus = z.enum(SERVICE_STATUSES);
const severity = z.enum(SEVERITIES);

/** 2.1 */
export const service = named(
  'Service',
  z.strictObject({
    id: numericId,
    type: z.literal('service'),
    attributes: z.strictObject({ name: z.string(), urlname: z.string(), tracker_url: url }),
  }),
);

/** 2.1 with its status, for `GET /services/{service_name}`. */
export const serviceDetail = named(
  'ServiceDetail',
  z.strictObject({
    id: numericId,
    type: z.literal('service'),
    attributes: z.strictObject({
      name: z.string(),
      urlname: z.string(),
      tracker_url: url,
      status: serviceStatus,
      status_page_url: url.nullable(),
      last_checked_at: timestamp.nullable().describe("The last successful read of the service's status feed; null without a feed"),
      feed_error: z.string().nullable().describe('Why the last read of the feed failed; null when it did not'),
    }),
  }),
);

/** 2.2: `tags` sits beside `attributes`. */
export const boardService = named(
  'BoardService',
  z.strictObject({
    id: numericId,
    type: z.literal('service'),
    attributes: z.strictObject({
      name: z.string(),
      status: serviceStatus,
      status_page_url: url.nullable(),
      severity_from_provider: z.literal(false),
      tracker_url: url,
    }),
    tags: z.array(z.string()).describe('The tags of the service on this board'),
  }),
);

export const userReport = named(
  'UserReport',
  z.strictObject({
    id: numericId,
    type: z.literal('user_report'),
    attributes: z.strictObject({ service: z.string().describe('The urlname of the service'), created_at: timestamp }),
  }),
);

/** 2.3 */
export const serviceIncident = named(
  'ServiceIncident',
  z.strictObject({
    id: numericId,
    type: z.literal('incident'),
    attributes: z.strictObject({
      url: z.string().nullable(),
      title: z.string(),
      description: z.string(),
      status: severity,
      resolved: z.boolean(),
      created_at: timestamp,
      resolved_at: timestamp.nullable(),
      service: z.string().describe('The display name of the service'),
      user_generated: z.boolean().describe('Whether the incident was opened from user reports'),
      components: z.array(z.string()),
    }),
  }),
);

export const incidentUpdate = named('IncidentUpdate', z.strictObject({ status: z.enum(RESOLUTION_STAGES), created_at: timestamp, description: z.string() }));

const incidentAttributes = {
  url: z.string().nullable().describe('The address of the incident on its status page'),
  title: z.string(),
  description: z.string().describe('The text of the latest update'),
  status: severity,
  resolved: z.boolean(),
  created_at: timestamp,
  resolved_at: timestamp.nullable(),
  updated_at: timestamp,
  service_id: z.int(),
  service: z.string().describe('The display name of the service'),
  service_status_url: url.nullable(),
  service_urlname: z.string(),
  user_generated: z.boolean(),
  severity_from_provider: z.string().nullable().describe('Null for a custom service'),
  components: z.array(z.string()),
  updates: z.array(incidentUpdate).describe('Oldest first'),
  tracker_url: url,
};

/** 2.4 */
export const incident = named('Incident', z.strictObject({ id: numericId, type: z.literal('incidents'), attributes: z.strictObject(incidentAttributes) }));

/** 2.4, the reduced field set of the update operation's response. */
export const updatedIncident = named(
  'UpdatedIncident',
  z.strictObject({
    id: numericId,
    type: z.literal('incidents'),
    attributes: z.strictObject(incidentAttributes).pick({
      title: true,
      description: true,
      status: true,
      resolved: true,
      created_at: true,
      resolved_at: true,
      updated_at: true,
      service_id: true,
      service: true,
      updates: true,
      tracker_url: true,
    }),
  }),
);

const monitorIncidentAttributes = z.strictObject({
  description: z.string().describe('The region(s) and the HTTP status or network error of the failure'),
  created_at: timestamp,
  resolved_at: timestamp.nullable(),
  updated_at: timestamp,
  resolved: z.boolean(),
});

/** 2.6, as a monitor's `ongoing_incidents` shows it. */
export const monitorIncident = named(
  'CustomMonitorIncident',
  z.strictObject({ id: numericId, type: z.literal('custom_monitor_incident'), attributes: monitorIncidentAttributes }),
);

/** 2.6, as the per-monitor list shows it: with `custom_monitor_url`. */
export const listedMonitorIncident = named(
  'ListedCustomMonitorIncident',
  z.strictObject({
    id: numericId,
    type: z.literal('custom_monitor_incident'),
    attributes: monitorIncidentAttributes.extend({ custom_monitor_url: url }),
  }),
);

/** 2.5 */
export const monitor = named(
  'CustomMonitor',
  z.strictObject({
    id: numericId,
    type: z.literal('custom_monitor'),
    attributes: z.strictObject({
      name: z.string(),
      status: z.enum(MONITOR_STATUSES),
      url,
      probe_type: z.enum(PROBE_TYPES),
      push_url: url.optional().describe('Heartbeat monitors: where the job reports in with GET or POST (a secret)'),
      created_at: timestamp,
      updated_at: timestamp,
      ongoing_incidents: z.strictObject({ data: z.array(monitorIncident) }),
    }),
  }),
);

/** 2.7 */
export const board = named(
  'Board',
  z.strictObject({
    id: z.string().regex(BOARD_ID).meta({ format: 'uuid' }),
    type: z.literal('board'),
    attributes: z.strictObject({
      name: z.string(),
      urlname: z.string(),
      services: z.array(z.strictObject({ name: z.string(), urlname: z.string(), tags: z.array(z.string()) })),
    }),
  }),
);

const maintenanceStatus = z.enum(MAINTENANCE_STATUSES);

/** A scheduled maintenance of custom services (not in the spec: statusbot's own). */
export const maintenance = named(
  'Maintenance',
  z.strictObject({
    id: numericId,
    type: z.literal('maintenance'),
    attributes: z.strictObject({
      title: z.string(),
      description: z.string().describe('What the maintenance is, as announced'),
      status: maintenanceStatus.describe('`scheduled` until `starts_at`, `in_progress` until `ends_at` (or until completed), then `completed`; or `cancelled`'),
      starts_at: timestamp,
      ends_at: timestamp,
      service_ids: z.array(z.int()).describe('Ids of the custom services it covers'),
      services: z.array(z.string()).describe('Display names of those services, in the same order'),
      created_at: timestamp,
      updated_at: timestamp,
      updates: z
        .array(z.strictObject({ status: maintenanceStatus, created_at: timestamp, description: z.string() }))
        .describe('Each move of its status, oldest first'),
      tracker_url: url.describe("The maintenance's public page; it shows only while a status page shows one of its services"),
    }),
  }),
);

/** An entry of the audit trail (not in the spec: statusbot's own). */
export const auditEvent = named(
  'AuditEvent',
  z.strictObject({
    id: numericId,
    type: z.literal('audit_event'),
    attributes: z.strictObject({
      occurred_at: timestamp,
      actor: z
        .string()
        .describe('`api_key:<key id>`, `slack:<team>/<user>`, `discord:<guild>/<user>`, `cli`, `job:<name>`, `page` (a status page visitor) or `system`'),
      action: z.string().describe('`<target type>.<verb>`, e.g. `incident.update`, `api_key.revoke`'),
      target: z.strictObject({ type: z.string(), id: z.string() }),
      request_id: z.string().nullable().describe('The id of the request that made the change (its `X-Request-Id`); null for jobs and the CLI'),
      changes: z
        .record(z.string(), z.strictObject({ from: z.unknown().optional(), to: z.unknown().optional() }))
        .describe('The fields changed: `from` the old value (absent for a creation), `to` the new one (absent for a removal)'),
    }),
  }),
);

/** What an alert notification did: the incidents it is about (not in the spec: statusbot's own). */
export const alertBatch = named(
  'AlertBatch',
  z.strictObject({
    type: z.literal('alert_batch'),
    attributes: z.strictObject({
      incidents: z
        .array(numericId)
        .describe('Ids of the incidents the alerts opened, changed or found unchanged; empty when they resolve a group that has none'),
    }),
  }),
);

/** An incident's postmortem, a Markdown document (not in the spec: statusbot's own). */
export const postmortemText = named(
  'Postmortem',
  z
    .string()
    .describe(
      'Markdown: the title, service, severity, lead, start, resolution and duration, the timeline (updates, changes, notifications sent; oldest first), and the sections Impact, Root cause and Action items to fill in',
    ),
);

/** What a probe agent probes (not in the spec: statusbot's own, for `statusbot agent`). */
export const agentAssignments = named(
  'AgentAssignments',
  z.strictObject({
    region: z.string().describe("The agent's region, as its token names it"),
    report_seconds: z.int().describe('Report at least this often, results or not, so that a quiet agent is told from a gone one'),
    monitors: z
      .array(
        z.strictObject({
          id: z.int(),
          name: z.string(),
          url: z.string(),
          probe_type: z.enum(PROBE_TYPES).exclude(['heartbeat']),
          keyword: z.string().nullable().describe('keyword: the text the body must hold'),
          interval_seconds: z.int().describe('How often to probe it'),
          record: z.enum(DNS_RECORDS).nullable().describe('dns: the record type asked'),
          expect: z.array(z.string()).nullable().describe('dns: the values expected'),
          dns_server: z.string().nullable().describe('dns: the resolver to ask; null for the system one'),
          days_before_expiry: z.int().nullable().describe('tls: down when the certificate expires sooner'),
        }),
      )
      .describe("Every monitor of the agent's company but heartbeats (pushed to the servers, which judge them)"),
  }),
);

/** What a batch of an agent's results did (not in the spec: statusbot's own). */
export const agentResultsAccepted = named(
  'AgentResultsAccepted',
  z.strictObject({
    accepted: z.int().describe('The results of the batch recorded'),
    repeated: z.int().describe('The results of the batch recorded before (the same run and seq): taken, not counted again'),
  }),
);

const one = <S extends z.ZodType>(id: string, schema: S) => named(id, z.strictObject({ data: schema }));
const list = <S extends z.ZodType>(id: string, schema: S) => named(id, z.strictObject({ data: z.array(schema) }));

export const serviceList = list('ServiceList', service);
export const serviceDetailDocument = one('ServiceDetailDocument', serviceDetail);
export const serviceIncidentList = list('ServiceIncidentList', serviceIncident);
export const userReportDocument = one('UserReportDocument', userReport);
export const incidentDocument = one('IncidentDocument', incident);
export const updatedIncidentDocument = one('UpdatedIncidentDocument', updatedIncident);
export const monitorList = list('CustomMonitorList', monitor);
export const monitorIncidentList = list('CustomMonitorIncidentList', listedMonitorIncident);
export const boardDocument = one('BoardDocument', board);
export const maintenanceDocument = one('MaintenanceDocument', maintenance);
export const maintenanceList = list('MaintenanceList', maintenance);
export const boardServiceDocument = one('BoardServiceDocument', boardService);
export const agentAssignmentsDocument = one('AgentAssignmentsDocument', agentAssignments);
export const agentResultsDocument = one('AgentResultsDocument', agentResultsAccepted);
export const alertBatchDocument = named('AlertBatchDocument', z.strictObject({ data: alertBatch }));
export const companyIncidentList = named(
  'CompanyIncidentList',
  z.strictObject({
    data: z.array(serviceIncident),
    links: z.strictObject({ next: z.string().nullable().describe('The next (older) page, null on the last one') }),
  }),
);
export const auditEventList = named(
  'AuditEventList',
  z.strictObject({
    data: z.array(auditEvent),
    links: z.strictObject({ next: z.string().nullable().describe('The next (older) page, null on the last one') }),
  }),
);

export type ServiceResource = z.infer<typeof service>;
export type AlertBatchResource = z.infer<typeof alertBatch>;
export type ServiceDetailResource = z.infer<typeof serviceDetail>;
export type BoardServiceResource = z.infer<typeof boardService>;
export type UserReportResource = z.infer<typeof userReport>;
export type ServiceIncidentResource = z.infer<typeof serviceIncident>;
export type IncidentResource = z.infer<typeof incident>;
export type UpdatedIncidentResource = z.infer<typeof updatedIncident>;
export type MonitorIncidentResource = z.infer<typeof monitorIncident> | z.infer<typeof listedMonitorIncident>;
export type MonitorResource = z.infer<typeof monitor>;
export type BoardResource = z.infer<typeof board>;
export type AuditEventResource = z.infer<typeof auditEvent>;
export type MaintenanceResource = z.infer<typeof maintenance>;

/** Section 7: the statuses the API answers with, and the title each carries. */
export const ERROR_TITLES = {
  400: 'Bad request',
  401: 'Unauthorized access',
  403: 'Forbidden',
  404: 'Resource not found',
  405: 'Method not allowed',
  413: 'Payload too large',
  422: 'Unprocessable entity',
  429: 'Too many requests',
  503: 'Service unavailable',
} as const;
export type ErrorStatus = keyof typeof ERROR_TITLES;

const source = z.union([
  z.strictObject({ pointer: z.string().describe('A JSON Pointer to the field in the body') }),
  z.strictObject({ parameter: z.string().describe('The query parameter') }),
]);

const errorObject = z.strictObject({
  status: z.int(),
  title: z.string(),
  detail: z.string(),
  source: source.optional(),
});

// The shape http-errors.ts renders, checked both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<z.infer<typeof errorObject>, ErrorObject>;

const ERROR_NAMES: Record<ErrorStatus, string> = {
  400: 'BadRequestError',
  401: 'UnauthorizedError',
  403: 'ForbiddenError',
  404: 'NotFoundError',
  405: 'MethodNotAllowedError',
  413: 'PayloadTooLargeError',
  422: 'UnprocessableEntityError',
  429: 'TooManyRequestsError',
  503: 'ServiceUnavailableError',
};

/** The error document of each status: its `status` and `title` fixed; only a 422 points at a field. */
function errorDocument(status: ErrorStatus): z.ZodType {
  const object = errorObject.extend({ status: z.literal(status), title: z.literal(ERROR_TITLES[status]), detail: z.string().min(1) });
  const errors = status === 422 ? object : object.omit({ source: true });
  return named(ERROR_NAMES[status], z.strictObject({ errors: z.array(errors).min(1) }));
}

export const errorDocuments = {} as Record<ErrorStatus, z.ZodType>;
for (const status of Object.keys(ERROR_TITLES).map(Number) as ErrorStatus[]) errorDocuments[status] = errorDocument(status);
