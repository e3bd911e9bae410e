import type { Company } from '../../src/domain/model/company.js';
import type { Maintenance, MaintenanceEvent } from '../../src/domain/model/maintenance.js';
import { listCurrentMaintenances } from '../../src/domain/maintenances/maintenance-service.js';
import type { ChatRequest } from './chat-request.js';
import type { ChatDialect } from './dialect.js';
import type { ChatReply } from './reply.js';
import { textReply } from './reply.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number): string => String(n).padStart(2, '0');

/** "22 Nov 2026, 10:00 UTC": a channel's members read it in every time zone. */
export const maintenanceTime = (at: Date): string =>
  `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}, ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;

/** How a channel is told of each event of a maintenance. */
export const MAINTENANCE_EVENT_LABEL: Record<MaintenanceEvent, string> = {
  scheduled: 'Maintenance scheduled',
  updated: 'Maintenance changed',
  started: 'Maintenance in progress',
  completed: 'Maintenance completed',
  cancelled: 'Maintenance cancelled',
};

export const NO_MAINTENANCE = 'No maintenance is scheduled or in progress.';

/** One maintenance as a line of the list: title, state, window, services, link. */
function maintenanceLine(d: ChatDialect, m: Maintenance, now: number): string {
  const x = d.markup;
  const underWay = m.status === 'in_progress' || m.startsAt.getTime() <= now;
  const state = underWay ? `In progress until ${maintenanceTime(m.endsAt)}` : `Scheduled ${maintenanceTime(m.startsAt)} to ${maintenanceTime(m.endsAt)}`;
  const services = m.services.map((s) => x.text(s.name)).join(', ');
  return `• ${x.link(m.trackerUrl, x.text(m.title))} — ${state} · ${services}`;
}

/** `/statusbot maintenance`: the company's maintenance in progress and upcoming, soonest first. */
export async function maintenanceList(req: ChatRequest, company: Company): Promise<ChatReply> {
  const list = await listCurrentMaintenances(req.ctx, company);
  if (list.length === 0) return textReply(NO_MAINTENANCE);
  const now = req.ctx.clock.now().getTime();
  return textReply([req.dialect.markup.bold(`Maintenance (${list.length})`), ...list.map((m) => maintenanceLine(req.dialect, m, now))].join('\n'));
}
