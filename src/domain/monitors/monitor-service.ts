import type { Selectable } from 'kysely';
import type { CustomMonitorsTable, MonitorIncidentsTable } from '../../db/schema.js';
import type { Company } from '../companies/company.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { HISTORY_WINDOW_MS } from '../incidents/incident-service.js';
import type { Monitor, MonitorIncident } from './monitor.js';

type IncidentRow = Pick<Selectable<MonitorIncidentsTable>, 'id' | 'monitor_id' | 'description' | 'created_at' | 'resolved_at' | 'updated_at' | 'resolved'> &
  Pick<Selectable<CustomMonitorsTable>, 'url'>;

const toIncident = (row: IncidentRow): MonitorIncident => ({
  id: row.id,
  monitorId: row.monitor_id,
  description: row.description,
  createdAt: new Date(row.created_at),
  resolvedAt: row.resolved_at === null ? null : new Date(row.resolved_at),
  updatedAt: new Date(row.updated_at),
  resolved: row.resolved === 1,
  monitorUrl: row.url,
});

const incidentColumns = [
  'monitor_incidents.id',
  'monitor_incidents.monitor_id',
  'monitor_incidents.description',
  'monitor_incidents.created_at',
  'monitor_incidents.resolved_at',
  'monitor_incidents.updated_at',
  'monitor_incidents.resolved',
  'custom_monitors.url',
] as const;

/** The company's monitors, each with its unresolved incidents. */
export async function listMonitors(ctx: DomainContext, company: Company): Promise<Monitor[]> {
  const monitors = await ctx.db
    .selectFrom('custom_monitors')
    .select(['id', 'name', 'status', 'url', 'probe_type', 'created_at', 'updated_at'])
    .where('company_id', '=', company.id)
    .orderBy('id')
    .execute();
  const ongoing = await ctx.db
    .selectFrom('monitor_incidents')
    .innerJoin('custom_monitors', 'custom_monitors.id', 'monitor_incidents.monitor_id')
    .select(incidentColumns)
    .where('custom_monitors.company_id', '=', company.id)
    .where('monitor_incidents.resolved', '=', 0)
    .orderBy('monitor_incidents.created_at', 'desc')
    .execute();
  const byMonitor = new Map<number, MonitorIncident[]>();
  for (const row of ongoing) {
    const list = byMonitor.get(row.monitor_id) ?? [];
    list.push(toIncident(row));
    byMonitor.set(row.monitor_id, list);
  }
  return monitors.map((m) => ({
    id: m.id,
    name: m.name,
    status: m.status,
    url: m.url,
    probeType: m.probe_type,
    createdAt: new Date(m.created_at),
    updatedAt: new Date(m.updated_at),
    ongoingIncidents: byMonitor.get(m.id) ?? [],
  }));
}

/** Incidents of one of the company's monitors: the last 30 days, plus any still unresolved; newest first. */
export async function listMonitorIncidents(ctx: DomainContext, company: Company, monitorId: number): Promise<MonitorIncident[]> {
  const monitor = await ctx.db.selectFrom('custom_monitors').select('id').where('id', '=', monitorId).where('company_id', '=', company.id).executeTakeFirst();
  if (!monitor) throw notFound('custom monitor');
  const since = ctx.clock.now().getTime() - HISTORY_WINDOW_MS;
  const rows = await ctx.db
    .selectFrom('monitor_incidents')
    .innerJoin('custom_monitors', 'custom_monitors.id', 'monitor_incidents.monitor_id')
    .select(incidentColumns)
    .where('monitor_incidents.monitor_id', '=', monitor.id)
    .where((eb) => eb.or([eb('monitor_incidents.created_at', '>=', since), eb('monitor_incidents.resolved', '=', 0)]))
    .orderBy('monitor_incidents.created_at', 'desc')
    .orderBy('monitor_incidents.id', 'desc')
    .execute();
  return rows.map(toIncident);
}
