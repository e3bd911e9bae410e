import type { Selectable } from 'kysely';
import type { CustomMonitorsTable, MonitorIncidentsTable } from '../../db/schema.js';
import type { Company } from '../model/company.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { HISTORY_WINDOW_MS } from '../incidents/incident-service.js';
import { pushUrlOf } from './heartbeats.js';
import type { Monitor, MonitorIncident } from './monitor.js';

type IncidentRow = Pick<Selectable<MonitorIncidentsTable>, 'id' | 'monitor_id' | 'description' | 'created_at' | 'resolved_at' | 'updated_at' | 'resolved'> &
  Pick<Selectable<CustomMonitorsTable>, 'url' | 'probe_type' | 'heartbeat_token'>;

/** A heartbeat has no address of its own to probe: its push address stands for it, to its own company. */
const addressOf = (publicUrl: string, m: Pick<Selectable<CustomMonitorsTable>, 'url' | 'probe_type' | 'heartbeat_token'>): string =>
  m.probe_type === 'heartbeat' && m.heartbeat_token !== null ? pushUrlOf(publicUrl, m.heartbeat_token) : m.url;

const toIncident = (publicUrl: string, row: IncidentRow): MonitorIncident => ({
  id: row.id,
  monitorId: row.monitor_id,
  description: row.description,
  createdAt: new Date(row.created_at),
  resolvedAt: row.resolved_at === null ? null : new Date(row.resolved_at),
  updatedAt: new Date(row.updated_at),
  resolved: row.resolved === 1,
  monitorUrl: addressOf(publicUrl, row),
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
  'custom_monitors.probe_type',
  'custom_monitors.heartbeat_token',
] as const;

/** The company's monitors, each with its unresolved incidents. */
export async function listMonitors(ctx: DomainContext, company: Pick<Company, 'id'>): Promise<Monitor[]> {
  const monitors = await ctx.db
    .selectFrom('custom_monitors')
    .select(['id', 'name', 'status', 'url', 'probe_type', 'heartbeat_token', 'created_at', 'updated_at'])
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
    list.push(toIncident(ctx.publicUrl, row));
    byMonitor.set(row.monitor_id, list);
  }
  return monitors.map((m) => {
    const url = addressOf(ctx.publicUrl, m);
    return {
      id: m.id,
      name: m.name,
      status: m.status,
      url,
      probeType: m.probe_type,
      pushUrl: m.probe_type === 'heartbeat' ? url : null,
      createdAt: new Date(m.created_at),
      updatedAt: new Date(m.updated_at),
      ongoingIncidents: byMonitor.get(m.id) ?? [],
    };
  });
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
  return rows.map((row) => toIncident(ctx.publicUrl, row));
}
