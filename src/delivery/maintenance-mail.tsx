import type { MaintenanceNotification } from '../domain/notifications/maintenance-payload.js';
import type { RenderedMail } from './mail-render.js';
import { MailDocument, STYLE, footer, html, oneLine, timeText } from './mail-render.js';
import { UpdateText } from '../markup/update-text.js';

const EVENT_LABELS: Record<MaintenanceNotification['event'], string> = {
  'maintenance.scheduled': 'Scheduled maintenance',
  'maintenance.updated': 'Maintenance changed',
  'maintenance.started': 'Maintenance in progress',
  'maintenance.completed': 'Maintenance completed',
  'maintenance.cancelled': 'Maintenance cancelled',
};

/** The mail about one event of a maintenance; the subject names it, the body its window, services and latest word. */
export function renderMaintenanceMail(n: MaintenanceNotification, links: { pageUrl: string; unsubscribeUrl: string }): RenderedMail {
  const pageName = oneLine(n.status_page.name);
  const label = EVENT_LABELS[n.event];
  const title = oneLine(n.maintenance.title);
  const subject = `[${pageName}] ${label}: ${title}`;
  const window = `From ${timeText(n.maintenance.starts_at)} to ${timeText(n.maintenance.ends_at)}`;
  const services = `Services: ${n.services.map((s) => oneLine(s.name)).join(', ')}`;
  // What was said last: the update this event added, else (a scheduling, a change) the announcement.
  const said = n.maintenance.update?.description || n.maintenance.description;
  const text = [
    `${label}: ${title}`,
    window,
    services,
    '',
    ...(said ? [said, ''] : []),
    `Details: ${n.maintenance.tracker_url}`,
    '',
    ...footer(pageName, links.unsubscribeUrl),
    '',
  ].join('\n');
  return {
    subject,
    text,
    html: html(
      <MailDocument title={subject} pageName={pageName} pageUrl={links.pageUrl} unsubscribeUrl={links.unsubscribeUrl}>
        <p style={STYLE.muted}>{label}</p>
        <h1 style="font-size:20px;margin:0 0 12px">{title}</h1>
        <p>{window}</p>
        <p>{services}</p>
        {said ? <UpdateText text={said} /> : null}
        <p>
          <a href={n.maintenance.tracker_url}>Details</a>
        </p>
      </MailDocument>,
    ),
  };
}
