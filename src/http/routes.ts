import { z } from 'zod';
import { addServiceToBoard, getBoard, updateBoardService } from '../domain/boards/board-service.js';
import type { Company } from '../domain/companies/company.js';
import type { DomainContext } from '../domain/context.js';
import { notFound } from '../domain/errors.js';
import {
  createIncident,
  deleteIncident,
  getIncident,
  listServiceIncidents,
  updateIncident,
} from '../domain/incidents/incident-service.js';
import { listMonitorIncidents, listMonitors } from '../domain/monitors/monitor-service.js';
import { getServiceStatus, listCatalog } from '../domain/services/service-queries.js';
import { parseInput } from '../domain/validation.js';
import { reportProblem, reporters } from '../domain/vendors/user-reports.js';
import {
  boardResource,
  boardServiceResource,
  incidentResource,
  monitorIncidentResource,
  monitorResource,
  serviceIncidentResource,
  serviceResource,
  serviceStatusResource,
  updatedIncidentResource,
  userReportResource,
} from './resources.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface ApiRequest {
  ctx: DomainContext;
  company: Company;
  /** The id of the API key that authenticated the request. */
  keyId: number;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when none was sent. */
  body: unknown;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Route {
  method: Method;
  /** Path under /api/v2 with `:name` segments. */
  path: string;
  /**
   * The answer depends only on the caller's company, the path and the
   * database's contents (see domain/read-epoch.ts), so it may be cached.
   */
  cacheable?: boolean;
  handle(req: ApiRequest): Promise<Reply>;
}

/** Integer ids in paths; anything else names no resource. */
function idParam(value: string | undefined): number {
  if (value === undefined || !/^(?:0|[1-9][0-9]{0,14})$/.test(value)) throw notFound();
  return Number(value);
}

const ok = (data: unknown): Reply => ({ status: 200, body: { data } });

const serviceIncidentsQuery = z.object({ include_user_reports: z.enum(['true', 'false']).optional() });

export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/services',
    handle: async ({ ctx }) => ok((await listCatalog(ctx)).map(serviceResource)),
  },
  {
    method: 'GET',
    path: '/services/:service_name',
    handle: async ({ ctx, company, params }) =>
      ok(serviceStatusResource(await getServiceStatus(ctx, company, params.service_name ?? ''))),
  },
  {
    method: 'GET',
    path: '/services/:service_name/incidents',
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
    handle: async ({ ctx, company, keyId, params, body }) => {
      const report = await reportProblem(ctx, company, params.service_name ?? '', reporters.apiKey(keyId), body);
      return { status: 202, body: { data: userReportResource(report) } };
    },
  },
  {
    method: 'GET',
    path: '/incidents/:id',
    cacheable: true,
    handle: async ({ ctx, company, params }) => ok(incidentResource(await getIncident(ctx, company, idParam(params.id)))),
  },
  {
    method: 'POST',
    path: '/incidents',
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
    handle: async ({ ctx, company, params, body }) =>
      ok(updatedIncidentResource(await updateIncident(ctx, company, idParam(params.id), body ?? {}))),
  },
  {
    method: 'DELETE',
    path: '/incidents/:id',
    handle: async ({ ctx, company, params }) => {
      await deleteIncident(ctx, company, idParam(params.id));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/custom_monitors',
    handle: async ({ ctx, company }) => ok((await listMonitors(ctx, company)).map(monitorResource)),
  },
  {
    method: 'GET',
    path: '/custom_monitors/:custom_monitor_id/incidents',
    handle: async ({ ctx, company, params }) => {
      const incidents = await listMonitorIncidents(ctx, company, idParam(params.custom_monitor_id));
      return ok(incidents.map((i) => monitorIncidentResource(i, true)));
    },
  },
  {
    method: 'GET',
    path: '/boards/:board_id',
    cacheable: true,
    handle: async ({ ctx, company, params }) => ok(boardResource(await getBoard(ctx, company, params.board_id ?? ''))),
  },
  {
    method: 'POST',
    path: '/boards/:board_id/services/:service_urlname',
    handle: async ({ ctx, company, params, body }) => {
      const service = await addServiceToBoard(ctx, company, params.board_id ?? '', params.service_urlname ?? '', body);
      return { status: 201, body: { data: boardServiceResource(service) } };
    },
  },
  {
    method: 'PATCH',
    path: '/boards/:board_id/services/:service_urlname',
    handle: async ({ ctx, company, params, body }) =>
      ok(
        boardServiceResource(
          await updateBoardService(ctx, company, params.board_id ?? '', params.service_urlname ?? '', body),
        ),
      ),
  },
];
