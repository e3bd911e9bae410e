import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { IncidentNotification } from '../domain/notifications/incident-notification.js';
import { UpdateText } from '../markup/update-text.js';

/** One mail, in the two forms every mail carries. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const EVENT_LABELS: Record<IncidentNotification['event'], string> = {
  'incident.created': 'New incident',
  'incident.updated': 'Update',
  'incident.resolved': 'Resolved',
  'incident.reopened': 'Reopened',
  'incident.deleted': 'Removed',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number): string => String(n).padStart(2, '0');
/** "22 Nov 2026, 10:02 UTC": one mail goes to readers in every time zone. */
export const timeText = (iso: string): string => {
  const d = new Date(iso);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
};

/** A header holds one line: titles and names typed with line breaks are flattened. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

export const STYLE = {
  body: 'margin:0;padding:24px;background:#f6f8fa;color:#1b1f24;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
  card: 'max-width:560px;margin:0 auto;padding:24px;background:#ffffff;border:1px solid #d0d7de;border-radius:8px',
  muted: 'color:#57606a;font-size:13px',
  button: 'display:inline-block;padding:10px 16px;background:#0969da;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600',
};

/** The HTML frame of every mail: inline styles only (mail readers drop stylesheets), text escaped by JSX. */
export function MailDocument(props: { title: string; pageName: string; pageUrl: string; unsubscribeUrl: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
      </head>
      <body style={STYLE.body}>
        <div style={STYLE.card}>
          <p style={STYLE.muted}>
            <a href={props.pageUrl}>{props.pageName}</a>
          </p>
          {props.children}
          <hr style="border:0;border-top:1px solid #d0d7de;margin:24px 0 12px" />
          <p style={STYLE.muted}>
            You receive this mail because this address was signed up for {props.pageName}. <a href={props.unsubscribeUrl}>Unsubscribe</a>
          </p>
        </div>
      </body>
    </html>
  );
}

export const html = (tree: preact.VNode): string => `<!doctype html>${renderToString(tree)}`;

export const footer = (pageName: string, unsubscribeUrl: string): string[] => [
  '-- ',
  `You receive this mail because this address was signed up for ${pageName}.`,
  `Unsubscribe: ${unsubscribeUrl}`,
];

/** The mail that asks a new address to confirm. */
export function renderConfirmationMail(args: { pageName: string; pageUrl: string; confirmUrl: string; unsubscribeUrl: string; expiresAt: Date }): RenderedMail {
  const pageName = oneLine(args.pageName);
  const subject = `Confirm your subscription to ${pageName}`;
  const until = timeText(args.expiresAt.toISOString());
  const text = [
    `Someone, probably you, asked to receive mail from ${pageName} (${args.pageUrl}) when an incident starts, changes or ends.`,
    '',
    'To confirm, open this link:',
    args.confirmUrl,
    '',
    `The link works until ${until}. If you did not ask for this, ignore this mail: nothing will be sent to you.`,
    '',
    ...footer(pageName, args.unsubscribeUrl),
    '',
  ].join('\n');
  return {
    subject,
    text,
    html: html(
      <MailDocument title={subject} pageName={pageName} pageUrl={args.pageUrl} unsubscribeUrl={args.unsubscribeUrl}>
        <h1 style="font-size:20px;margin:0 0 12px">Confirm your subscription</h1>
        <p>Someone, probably you, asked to receive mail from {pageName} when an incident starts, changes or ends.</p>
        <p>
          <a href={args.confirmUrl} style={STYLE.button}>
            Confirm my subscription
          </a>
        </p>
        <p style={STYLE.muted}>The link works until {until}. If you did not ask for this, ignore this mail: nothing will be sent to you.</p>
      </MailDocument>,
    ),
  };
}

/** The mail about one event of an incident; the subject names the service and the incident. */
export function renderIncidentMail(n: IncidentNotification, links: { pageUrl: string; unsubscribeUrl: string }): RenderedMail {
  const pageName = oneLine(n.status_page.name);
  const label = EVENT_LABELS[n.event];
  const service = oneLine(n.service.name);
  const title = oneLine(n.incident.title);
  const subject = `[${pageName}] ${label} - ${service}: ${title}`;
  const state = n.incident.resolved ? 'resolved' : `${n.incident.status}, ${n.incident.resolution_stage ?? 'investigating'}`;
  const details = n.incident.url ?? links.pageUrl;
  const when = timeText(n.occurred_at);
  const removed = n.event === 'incident.deleted';
  const text = [
    `${label} - ${service}: ${title}`,
    removed ? `This incident was removed (${when}).` : `Status: ${state} (${when})`,
    '',
    ...(removed || !n.incident.description ? [] : [n.incident.description, '']),
    `Details: ${details}`,
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
        <h1 style="font-size:20px;margin:0 0 12px">
          {service}: {title}
        </h1>
        <p>{removed ? `This incident was removed (${when}).` : `Status: ${state} (${when})`}</p>
        {removed || !n.incident.description ? null : <UpdateText text={n.incident.description} />}
        <p>
          <a href={details}>Details</a>
        </p>
      </MailDocument>,
    ),
  };
}
