import { z } from 'zod';
import { receiveAlert, receiveAlertmanager } from '../domain/alerts/alert-intake.js';
import type { AlertBatch } from '../domain/alerts/alert-intake.js';
import { alertmanagerInput, genericAlertInput } from '../domain/alerts/alert-input.js';
import { auditPageInput } from '../domain/audit/audit-input.js';
import { listAuditEvents } from '../domain/audit/audit-trail.js';
import { addServiceToBoard, getBoard, updateBoardService } from '../domain/boards/board-service.js';
import { agentRoutes } from './agent-routes.js';
import { notFound } from '../domain/errors.js';
import { listCompanyIncidents } from '../domain/incidents/company-incidents.js';
import { getPostmortem } from '../domain/incidents/postmortem.js';
import { postmortemMarkdown } from '../domain/incidents/postmortem-markdown.js';
import { createIncident, deleteIncident, getIncident, listServiceIncidents, updateIncident } from '../domain/incidents/incident-service.js';
import { listMonitorIncidents, listMonitors } from '../domain/monitors/monitor-service.js';
import { getServiceStatus, listCatalog } from '../domain/services/service-queries.js';
import { MAX_TAGS, TAG_MAX_LENGTH, boardServiceInput } from '../domain/boards/board-input.js';
import { BOARD_ID } from '../domain/model/board.js';
import { createIncidentInput, incidentListInput, updateIncidentInput } from '../domain/incidents/incident-input.js';
import { createMaintenanceInput, updateMaintenanceInput } from '../domain/maintenances/maintenance-input.js';
import { createMaintenance, deleteMaintenance, getMaintenance, listMaintenances, updateMaintenance } from '../domain/maintenances/maintenance-service.js';
import { parseInput } from '../domain/validation.js';
import { userReportInput } from '../domain/vendors/user-report-input.js';
import { reportProblem, reporters } from '../domain/vendors/user-reports.js';
import {
  alertBatchDocument,
  auditEventList,
  boardDocument,
  boardServiceDocument,
  companyIncidentList,
  incidentDocument,
  monitorIncidentList,
  monitorList,
  serviceDetailDocument,
  serviceIncidentList,
  serviceList,
  updatedIncidentDocument,
  maintenanceDocument,
  maintenanceList,
  postmortemText,
  userReportDocument,
} from './api-schemas.js';
import {
  alertBatchResource,
  auditEventResource,
  boardResource,
  boardServiceResource,
  incidentResource,
  maintenanceResource,
  monitorIncidentResource,
  monitorResource,
  serviceIncidentResource,
  serviceResource,
  serviceStatusResource,
  updatedIncidentResource,
  userReportResource,
} from './resources.js';

export type { ApiRequest, Method, Reply, Route, RouteDoc } from './route.js';
import type { Reply, Route } from './route.js';

/** Integer ids in paths; anything else names no resource. */
function idParam(value: string | undefined): number {
  if (value === undefined || !/^(?:0|[1-9][0-9]{0,14})$/.test(value)) throw notFound();
  return Number(value);
}

const incidentId = z.int().min(0).describe("The incident's id");
const serviceName = z.string().describe('The urlname of the service');
const maintenanceId = z.int().min(0).describe("The maintenance's id");
const boardId = z.string().regex(BOARD_ID).meta({ format: 'uuid', description: "The board's id" });

const ok = (data: unknown): Reply => ({ status: 200, body: { data } });

const alertBatchReply = (batch: AlertBatch): Reply => ({ status: 202, body: { data: alertBatchResource(batch) } });

const serviceIncidentsQuery = z.object({
  include_user_reports: z.enum(['true', 'false']).optional().describe('`true` includes the incidents opened from user reports'),
});
/** The address of the next page of `GET /incidents`: the same filters and limit, from `cursor` on. */
function nextPage(query: URLSearchParams, cursor: string): string {
  const filters = Object.keys(incidentListInput.shape).filter((name) => name !== 'cursor' && query.has(name));
  const next = new URLSearchParams(filters.map((name) => [name, query.get(name)!]));
  next.set('cursor', cursor);
  return `/api/v2/incidents?${next}`;
}

const tagRules = `Tags are trimmed; blanks and duplicates are dropped; at most ${MAX_TAGS} tags of ${TAG_MAX_LENGTH} characters.`;

const companyRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/services',
    doc: {
      operationId: 'listServices',
      tag: 'Services',
      summary: 'List the third-party services',
      description: 'The catalog of third-party services (spec 4.1), demo services included; not your custom services.',
      success: { status: 200, description: 'The services', schema: serviceList },
    },
    handle: async ({ ctx }) => ok((await listCatalog(ctx)).map(serviceResource)),
  },
  {
    method: 'GET',
    path: '/services/:service_name',
    doc: {
      operationId: 'getService',
      tag: 'Services',
      summary: 'Get a service with its status',
      description: 'A catalog service or one of your custom services, with its current status and the health of its status feed.',
      params: { service_name: serviceName },
      success: { status: 200, description: 'The service', schema: serviceDetailDocument },
      errors: { 404: 'No catalog service, nor custom service of yours, has this urlname' },
    },
    handle: async ({ ctx, company, params }) => ok(serviceStatusResource(await getServiceStatus(ctx, company, params.service_name ?? ''))),
  },
  {
    method: 'GET',
    path: '/services/:service_name/incidents',
    doc: {
      operationId: 'listServiceIncidents',
      tag: 'Services',
      summary: "List a service's incidents",
      description: 'Incidents created in the last 30 days plus any still unresolved, newest first (spec 4.2).',
      params: { service_name: serviceName },
      query: serviceIncidentsQuery,
      success: { status: 200, description: 'The incidents', schema: serviceIncidentList },
      errors: {
        403: 'The free plan reads incidents of monitored services only',
        404: 'No catalog service, nor custom service of yours, has this urlname',
      },
    },
    handle: async ({ ctx, company, params, query }) => {
      const q = parseInput(serviceIncidentsQuery, Object.fromEntries(query), 'query');
      const incidents = await listServiceIncidents(ctx, company, params.service_name ?? '', {
        includeUserReports: q.include_user_reports === 'true',
      });
      return ok(incidents.map(serviceIncidentResource));
    },
  },
  {
    method: 'POST',
    path: '/services/:service_name/reports',
    doc: {
      operationId: 'reportServiceProblem',
      tag: 'Services',
      summary: 'Report a problem with a service',
      description: 'Counts once per reporter within the window; enough distinct reporters open a user-generated incident.',
      params: { service_name: serviceName },
      body: { schema: userReportInput, required: false },
      success: { status: 202, description: 'The report was recorded', schema: userReportDocument },
      errors: {
        403: 'The free plan reports problems with monitored services only',
        404: 'No catalog service, nor custom service of yours, has this urlname',
      },
    },
    handle: async ({ ctx, company, keyId, params, body }) => {
      const report = await reportProblem(ctx, company, params.service_name ?? '', reporters.apiKey(keyId), body);
      return { status: 202, body: { data: userReportResource(report) } };
    },
  },
  {
    method: 'GET',
    path: '/incidents/:id',
    cacheable: true,
    doc: {
      operationId: 'getIncident',
      tag: 'Incidents',
      summary: 'Get an incident',
      description: 'An incident of one of your custom services, or of a third-party service your plan shows (spec 4.3).',
      params: { id: incidentId },
      success: { status: 200, description: 'The incident with its updates', schema: incidentDocument },
      errors: {
        403: 'The free plan reads incidents of monitored services only',
        404: 'No incident with this id is visible to you',
      },
    },
    handle: async ({ ctx, company, params }) => ok(incidentResource(await getIncident(ctx, company, idParam(params.id)))),
  },
  {
    method: 'GET',
    path: '/incidents/:id/postmortem',
    doc: {
      operationId: 'getIncidentPostmortem',
      tag: 'Incidents',
      summary: "An incident's postmortem, in Markdown",
      description:
        'A draft to complete: title, service, severity, lead, start, resolution and duration; the timeline of updates, changes ' +
        '(from the audit trail) and notifications sent, oldest first; and empty sections Impact, Root cause and Action items. ' +
        'The same incidents as `GET /incidents/{id}`.',
      params: { id: incidentId },
      success: { status: 200, description: 'The postmortem', schema: postmortemText, mediaType: 'text/markdown' },
      errors: {
        403: 'The free plan reads incidents of monitored services only',
        404: 'No incident with this id is visible to you',
      },
    },
    handle: async ({ ctx, company, params }) => {
      const postmortem = await getPostmortem(ctx, company, idParam(params.id));
      return { status: 200, text: { type: 'text/markdown; charset=utf-8', body: postmortemMarkdown(postmortem, ctx.clock.now()) } };
    },
  },
  {
    method: 'GET',
    path: '/incidents',
    doc: {
      operationId: 'listIncidents',
      tag: 'Incidents',
      summary: 'List your incidents',
      description:
        'The incidents on your custom services, newest first, in the list shape of the service incident list (spec 2.3), ' +
        'filtered by `resolved`, `service_id` and `since`. Follow `links.next` for older incidents: ' +
        'the cursor keeps its place while incidents are opened, so paging neither repeats nor skips one.',
      query: incidentListInput,
      success: { status: 200, description: 'A page of the incidents', schema: companyIncidentList },
      errors: { 422: 'service_id is not the id of a custom service of yours' },
    },
    handle: async ({ ctx, company, query }) => {
      const { incidents, next } = await listCompanyIncidents(ctx, company, Object.fromEntries(query));
      return { status: 200, body: { data: incidents.map(serviceIncidentResource), links: { next: next && nextPage(query, next) } } };
    },
  },
  {
    method: 'POST',
    path: '/incidents',
    doc: {
      operationId: 'createIncident',
      tag: 'Incidents',
      summary: 'Create an incident',
      description: 'On one of your custom services (spec 4.4). Linked status pages are updated and subscribers notified.',
      body: { schema: createIncidentInput, required: true },
      success: {
        status: 201,
        description: 'The incident, with its first update',
        schema: incidentDocument,
        headers: { Location: "The incident's address" },
      },
      errors: { 422: 'service_id is not the id of a custom service of yours' },
    },
    handle: async ({ ctx, company, body }) => {
      const incident = await createIncident(ctx, company, body ?? {});
      return {
        status: 201,
        body: { data: incidentResource(incident) },
        headers: { Location: `/api/v2/incidents/${incident.id}` },
      };
    },
  },
  {
    method: 'PATCH',
    path: '/incidents/:id',
    doc: {
      operationId: 'updateIncident',
      tag: 'Incidents',
      summary: 'Update an incident',
      description:
        'Of one of your custom services (spec 4.5). `description` and `resolution_stage` go together and add an update; ' +
        '`resolved` resolves the incident, another stage reopens a resolved one.',
      params: { id: incidentId },
      body: {
        schema: updateIncidentInput.meta({ dependentRequired: { description: ['resolution_stage'], resolution_stage: ['description'] } }),
        required: false,
      },
      success: { status: 200, description: 'The incident (the reduced field set)', schema: updatedIncidentDocument },
      errors: {
        403: 'Incidents of third-party services cannot be changed',
        404: 'No incident with this id is visible to you',
        422: 'only one of description and resolution_stage was sent',
      },
    },
    handle: async ({ ctx, company, params, body }) => ok(updatedIncidentResource(await updateIncident(ctx, company, idParam(params.id), body ?? {}))),
  },
  {
    method: 'DELETE',
    path: '/incidents/:id',
    doc: {
      operationId: 'deleteIncident',
      tag: 'Incidents',
      summary: 'Delete an incident',
      description: 'Of one of your custom services, for good (spec 4.6). Linked status pages are updated.',
      params: { id: incidentId },
      success: { status: 204, description: 'Deleted' },
      errors: {
        403: 'Incidents of third-party services cannot be changed',
        404: 'No incident with this id is visible to you',
      },
    },
    handle: async ({ ctx, company, params }) => {
      await deleteIncident(ctx, company, idParam(params.id));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/custom_monitors',
    doc: {
      operationId: 'listCustomMonitors',
      tag: 'Custom monitors',
      summary: 'List your custom monitors',
      description: 'With their ongoing incidents (spec 4.7).',
      success: { status: 200, description: 'The monitors', schema: monitorList },
    },
    handle: async ({ ctx, company }) => ok((await listMonitors(ctx, company)).map(monitorResource)),
  },
  {
    method: 'GET',
    path: '/custom_monitors/:custom_monitor_id/incidents',
    doc: {
      operationId: 'listCustomMonitorIncidents',
      tag: 'Custom monitors',
      summary: "List a custom monitor's incidents",
      description: 'Incidents created in the last 30 days plus any still unresolved, newest first (spec 4.8).',
      params: { custom_monitor_id: z.int().min(0).describe("The monitor's id") },
      success: { status: 200, description: 'The incidents', schema: monitorIncidentList },
      errors: { 404: 'You have no monitor with this id' },
    },
    handle: async ({ ctx, company, params }) => {
      const incidents = await listMonitorIncidents(ctx, company, idParam(params.custom_monitor_id));
      return ok(incidents.map((i) => monitorIncidentResource(i, true)));
    },
  },
  {
    method: 'GET',
    path: '/boards/:board_id',
    cacheable: true,
    doc: {
      operationId: 'getBoard',
      tag: 'Boards',
      summary: 'Get a board',
      description: 'With its services and their tags (spec 4.9).',
      params: { board_id: boardId },
      success: { status: 200, description: 'The board', schema: boardDocument },
      errors: { 404: 'You have no board with this id' },
    },
    handle: async ({ ctx, company, params }) => ok(boardResource(await getBoard(ctx, company, params.board_id ?? ''))),
  },
  {
    method: 'POST',
    path: '/boards/:board_id/services/:service_urlname',
    doc: {
      operationId: 'addBoardService',
      tag: 'Boards',
      summary: 'Add a service to a board',
      description: 'A third-party service, with tags (spec 4.10).',
      params: { board_id: boardId, service_urlname: serviceName },
      body: { schema: boardServiceInput, required: false, description: tagRules },
      success: { status: 201, description: 'The service on the board', schema: boardServiceDocument },
      errors: {
        404: 'You have no board with this id, or no catalog service has this urlname',
        422: 'the service is already on the board ("Service already added to board")',
      },
    },
    handle: async ({ ctx, company, params, body }) => {
      const service = await addServiceToBoard(ctx, company, params.board_id ?? '', params.service_urlname ?? '', body);
      return { status: 201, body: { data: boardServiceResource(service) } };
    },
  },
  {
    method: 'PATCH',
    path: '/boards/:board_id/services/:service_urlname',
    doc: {
      operationId: 'updateBoardService',
      tag: 'Boards',
      summary: 'Update a service on a board',
      description: 'Replaces its tags when `tags` is sent; `[]` clears them (spec 4.11).',
      params: { board_id: boardId, service_urlname: serviceName },
      body: { schema: boardServiceInput, required: false, description: tagRules },
      success: { status: 200, description: 'The service on the board', schema: boardServiceDocument },
      errors: { 404: 'You have no board with this id, or the service is not on it' },
    },
    handle: async ({ ctx, company, params, body }) =>
      ok(boardServiceResource(await updateBoardService(ctx, company, params.board_id ?? '', params.service_urlname ?? '', body))),
  },
  {
    method: 'GET',
    path: '/maintenances',
    doc: {
      operationId: 'listMaintenances',
      tag: 'Maintenance',
      summary: 'List your maintenances',
      description: 'Those scheduled or in progress first, soonest first; then those completed or cancelled in the last 30 days, latest first.',
      success: { status: 200, description: 'The maintenances', schema: maintenanceList },
    },
    handle: async ({ ctx, company }) => ok((await listMaintenances(ctx, company)).map(maintenanceResource)),
  },
  {
    method: 'POST',
    path: '/maintenances',
    doc: {
      operationId: 'createMaintenance',
      tag: 'Maintenance',
      summary: 'Schedule a maintenance',
      description:
        'Of some of your custom services, from `starts_at` to `ends_at` (ISO 8601). It starts and completes at those times: ' +
        'its services show `maintenance` meanwhile, and monitors watching them open no incident. ' +
        'Subscribers of the status pages showing those services, and channels following them, are told of each move.',
      body: { schema: createMaintenanceInput, required: true },
      success: {
        status: 201,
        description: 'The maintenance, with its first update',
        schema: maintenanceDocument,
        headers: { Location: "The maintenance's address" },
      },
      errors: { 404: 'A service_id is not the id of a custom service of yours', 422: 'ends_at is not after starts_at' },
    },
    handle: async ({ ctx, company, body }) => {
      const created = await createMaintenance(ctx, company, body ?? {});
      return { status: 201, body: { data: maintenanceResource(created) }, headers: { Location: `/api/v2/maintenances/${created.id}` } };
    },
  },
  {
    method: 'GET',
    path: '/maintenances/:id',
    doc: {
      operationId: 'getMaintenance',
      tag: 'Maintenance',
      summary: 'Get a maintenance',
      params: { id: maintenanceId },
      success: { status: 200, description: 'The maintenance with its updates', schema: maintenanceDocument },
      errors: { 404: 'You have no maintenance with this id' },
    },
    handle: async ({ ctx, company, params }) => ok(maintenanceResource(await getMaintenance(ctx, company, idParam(params.id)))),
  },
  {
    method: 'PATCH',
    path: '/maintenances/:id',
    doc: {
      operationId: 'updateMaintenance',
      tag: 'Maintenance',
      summary: 'Change or end a maintenance',
      description:
        'Changes `title`, `description`, `starts_at` or `ends_at`; or ends it: `status` `cancelled` or `completed`, ' +
        'with `description` as the text of the update this adds. Subscribers are told.',
      params: { id: maintenanceId },
      body: { schema: updateMaintenanceInput, required: false },
      success: { status: 200, description: 'The maintenance', schema: maintenanceDocument },
      errors: {
        404: 'You have no maintenance with this id',
        422: 'status sent with other fields than description, a maintenance already over, or ends_at not after starts_at',
      },
    },
    handle: async ({ ctx, company, params, body }) => ok(maintenanceResource(await updateMaintenance(ctx, company, idParam(params.id), body ?? {}))),
  },
  {
    method: 'DELETE',
    path: '/maintenances/:id',
    doc: {
      operationId: 'deleteMaintenance',
      tag: 'Maintenance',
      summary: 'Delete a maintenance',
      description: 'For good. One not over yet is told to subscribers as cancelled.',
      params: { id: maintenanceId },
      success: { status: 204, description: 'Deleted' },
      errors: { 404: 'You have no maintenance with this id' },
    },
    handle: async ({ ctx, company, params }) => {
      await deleteMaintenance(ctx, company, idParam(params.id));
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/alerts/alertmanager',
    doc: {
      operationId: 'receiveAlertmanagerAlerts',
      tag: 'Alerts',
      summary: 'Receive an Alertmanager or Grafana notification',
      description:
        "Point Alertmanager's webhook receiver (or a Grafana webhook contact point) here, with the API key as its bearer credentials. " +
        'Each alert group (`groupKey`) is one incident, on the custom service whose urlname or name is the value of the label `service` ' +
        "(your company's `alerts.service_label`), else on `alerts.default_service_id`. Its title is the `summary` annotation, else the `alertname` label; " +
        'it is `major` when a firing alert has the label `severity` `critical` or `page`, else `minor`; its description lists the firing alerts. ' +
        'The same alerts firing again change nothing; another set of firing alerts adds an update; `resolved` resolves the incident, and firing again reopens it. ' +
        'Pages, subscribers, channels and the audit trail hear of each change as of one made through the API.',
      body: { schema: alertmanagerInput, required: true },
      success: { status: 202, description: 'The notification was applied', schema: alertBatchDocument },
      errors: { 422: 'no custom service of yours is named by the service label, and no default service is set (the detail names the label)' },
    },
    handle: async ({ ctx, company, body }) => alertBatchReply(await receiveAlertmanager(ctx, company, body ?? {})),
  },
  {
    method: 'POST',
    path: '/alerts',
    doc: {
      operationId: 'receiveAlert',
      tag: 'Alerts',
      summary: 'Trigger or resolve an alert',
      description:
        "For any monitoring tool, as PagerDuty's Events API: `trigger` opens an incident on `service_id` for `dedup_key`, or, while that incident is open, " +
        'updates it (the same fields again change nothing); once it is resolved, a trigger opens a new one. `resolve` resolves the open incident of the key, ' +
        'with `description` as the closing update. The answer lists the incident concerned.',
      body: { schema: genericAlertInput.meta({ type: 'object' }), required: true },
      success: { status: 202, description: 'The alert was applied', schema: alertBatchDocument },
      errors: { 422: 'service_id is not the id of a custom service of yours; or a resolve names a dedup_key that has no incident' },
    },
    handle: async ({ ctx, company, body }) => alertBatchReply(await receiveAlert(ctx, company, body ?? {})),
  },
  {
    method: 'GET',
    path: '/audit_events',
    doc: {
      operationId: 'listAuditEvents',
      tag: 'Audit',
      summary: "List your company's audit trail",
      description:
        "Every change made to your company's data, from the API, Slack, Discord, the status pages, the CLI and jobs, newest first. " +
        'Follow `links.next` for older events.',
      query: auditPageInput,
      success: { status: 200, description: 'The events', schema: auditEventList },
    },
    handle: async ({ ctx, company, query }) => {
      const { events, more } = await listAuditEvents(ctx, { company }, Object.fromEntries(query));
      const limit = query.get('limit');
      const next = more ? `/api/v2/audit_events?before=${events.at(-1)!.id}${limit ? `&limit=${encodeURIComponent(limit)}` : ''}` : null;
      return { status: 200, body: { data: events.map(auditEventResource), links: { next } } };
    },
  },
];

/** The one table of /api/v2: the company's routes, and the probe agents'. */
export const routes: readonly Route[] = [...companyRoutes, ...agentRoutes];
