import type { types as slack } from '@slack/bolt';
import type { ChannelSubscription } from '../../src/domain/chat/chat.js';
import type { Incident, IncidentSummary, Severity } from '../../src/domain/incidents/incident.js';
import type {
  DigestAnnouncement,
  IncidentAnnouncement,
  MonitorAnnouncement,
  StatusChangeAnnouncement,
} from '../../src/domain/notifications/announcement.js';
import type { ServiceStatus, ServiceWithStatus } from '../../src/domain/services/service.js';
import { SEVERITY_LABEL, STAGE_LABEL } from '../labels.js';

/** A message as chat.postMessage, chat.update and response_url take it. */
export interface SlackMessage {
  text: string;
  blocks?: slack.KnownBlock[];
}

export const ACTION_POST_UPDATE = 'incident_post_update';
export const ACTION_RESOLVE = 'incident_resolve';

const SEVERITY_ICON: Record<Severity, string> = { minor: ':large_yellow_circle:', major: ':red_circle:' };
const STATUS_LABEL: Record<ServiceStatus, string> = {
  ok: ':white_check_mark: Operational',
  minor: ':large_yellow_circle: Minor issues',
  major: ':red_circle: Major outage',
  maintenance: ':wrench: Maintenance',
};

// Block Kit's limits: 3000 characters in a section, 150 in a header.
const SECTION_MAX = 2900;
const HEADER_MAX = 140;

/** User text inside mrkdwn: Slack reads &, < and > as markup. */
export const esc = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
/** Shown in each reader's own time zone; the ISO text where a client cannot. */
const when = (at: string | Date): string => {
  const iso = typeof at === 'string' ? at : at.toISOString();
  return `<!date^${Math.floor(Date.parse(iso) / 1000)}^{date_short_pretty} {time}|${iso}>`;
};
const link = (url: string, label: string): string => `<${url}|${esc(label)}>`;
const section = (text: string): slack.SectionBlock => ({ type: 'section', text: { type: 'mrkdwn', text: clip(text, SECTION_MAX) } });
const context = (text: string): slack.ContextBlock => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });

/** The one message that shows an incident in a channel; edited in place as it changes. */
export function incidentMessage(a: IncidentAnnouncement): SlackMessage {
  const i = a.incident;
  const deleted = a.event === 'deleted';
  const state = deleted
    ? ':wastebasket: Deleted'
    : i.resolved
      ? ':white_check_mark: Resolved'
      : `${SEVERITY_ICON[i.severity]} ${SEVERITY_LABEL[i.severity]}`;
  const blocks: slack.KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(`#${i.id} ${i.title}`, HEADER_MAX) } },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Service*\n${esc(i.service.name)}` },
        { type: 'mrkdwn', text: `*State*\n${state}` },
        { type: 'mrkdwn', text: `*Severity*\n${SEVERITY_LABEL[i.severity]}` },
        { type: 'mrkdwn', text: `*Stage*\n${i.stage ? STAGE_LABEL[i.stage] : '–'}` },
      ],
    },
  ];
  if (i.description.trim()) blocks.push(section(esc(i.description)));
  const times = [`Opened ${when(i.createdAt)}`, `updated ${when(i.updatedAt)}`];
  if (i.resolvedAt) times.push(`resolved ${when(i.resolvedAt)}`);
  blocks.push(context(`${times.join(' · ')} · ${link(i.trackerUrl, 'details')}`));
  if (!deleted) {
    const buttons: slack.Button[] = [
      { type: 'button', action_id: ACTION_POST_UPDATE, text: { type: 'plain_text', text: 'Post update' }, value: String(i.id) },
    ];
    if (!i.resolved) {
      buttons.push({ type: 'button', action_id: ACTION_RESOLVE, style: 'primary', text: { type: 'plain_text', text: 'Resolve' }, value: String(i.id) });
    }
    blocks.push({ type: 'actions', block_id: `incident:${i.id}`, elements: buttons });
  }
  return { text: `${deleted ? 'Deleted' : i.resolved ? 'Resolved' : SEVERITY_LABEL[i.severity]} incident #${i.id}: ${i.title} (${i.service.name})`, blocks };
}

/** An update of the incident, posted in the thread of its message. */
export function updateReply(a: IncidentAnnouncement): SlackMessage | null {
  const u = a.update;
  if (!u) return null;
  const text = `*${STAGE_LABEL[u.stage]}*${u.description.trim() ? ` — ${esc(u.description)}` : ''}`;
  return { text: clip(text, SECTION_MAX), blocks: [section(text), context(when(u.createdAt))] };
}

export function statusChangeMessage(a: StatusChangeAnnouncement): SlackMessage {
  const s = a.service;
  const headline = `${link(s.trackerUrl, s.name)} is now *${STATUS_LABEL[a.to]}* (was ${STATUS_LABEL[a.from]})`;
  const note = [when(a.at), ...(a.cause ? [esc(a.cause)] : [])].join(' · ');
  return {
    text: `${s.name} is now ${STATUS_LABEL[a.to].replace(/^:[a-z_]+: /, '')}`,
    blocks: [section(headline), context(note)],
  };
}

export function monitorMessage(a: MonitorAnnouncement): SlackMessage {
  const down = a.change === 'down';
  const headline = `${down ? ':red_circle:' : ':white_check_mark:'} Monitor *${esc(a.monitor.name)}* ${down ? 'is down' : 'recovered'} (${esc(a.monitor.url)})`;
  return {
    text: `Monitor ${a.monitor.name} ${down ? 'is down' : 'recovered'}`,
    blocks: [section(headline), context(`${when(a.at)} · ${esc(a.region)}${a.description ? ` · ${esc(a.description)}` : ''}`)],
  };
}

// Block Kit allows 50 blocks in a message.
const DIGEST_SECTIONS_MAX = 45;

/** A board's services, worst first, packed into as few sections as fit. */
export function digestMessage(a: DigestAnnouncement): SlackMessage {
  const lines = a.services.map((s) => {
    const tags = s.tags.length ? ` _${s.tags.map(esc).join(', ')}_` : '';
    const incidents = s.openIncidents.map((i) => `\n    ${SEVERITY_ICON[i.severity]} ${i.url ? link(i.url, i.title) : esc(i.title)}`);
    return `${STATUS_LABEL[s.status].split(' ')[0]} ${link(s.trackerUrl, s.name)}${tags}${incidents.join('')}`;
  });
  const sections: string[] = [];
  for (const line of lines.length ? lines : ['_This board has no services._']) {
    const last = sections.at(-1);
    if (last !== undefined && last.length + line.length + 1 <= SECTION_MAX) sections[sections.length - 1] = `${last}\n${line}`;
    else sections.push(line);
  }
  const troubled = a.services.filter((s) => s.status !== 'ok').length;
  const summary = troubled === 0 ? 'all services operational' : `${troubled} of ${a.services.length} services with issues`;
  return {
    text: `${a.board.name}: ${summary}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(`${a.board.name} — status digest`, HEADER_MAX) } },
      ...sections.slice(0, DIGEST_SECTIONS_MAX).map(section),
      context(`${summary} · ${when(a.at)}`),
    ],
  };
}

export function incidentList(incidents: readonly IncidentSummary[]): SlackMessage {
  if (incidents.length === 0) return { text: 'No open incidents. :tada:' };
  const lines = incidents.map(
    (i) => `• *#${i.id}* ${SEVERITY_ICON[i.status]} ${esc(i.title)} — ${esc(i.serviceName)}, since ${when(i.createdAt)}`,
  );
  return { text: clip(`*Open incidents (${incidents.length})*\n${lines.join('\n')}`, 3900) };
}

export function incidentTimeline(i: Incident): SlackMessage {
  const state = i.resolved ? ':white_check_mark: Resolved' : `${SEVERITY_ICON[i.status]} ${SEVERITY_LABEL[i.status]}, open`;
  const head = `*#${i.id} ${esc(i.title)}* — ${esc(i.serviceName)} · ${state} · ${link(i.trackerUrl, 'details')}`;
  const updates = i.updates.map(
    (u) => `• ${when(u.createdAt)} *${STAGE_LABEL[u.stage]}*${u.description.trim() ? ` — ${esc(u.description)}` : ''}`,
  );
  return { text: clip(`${head}\n${updates.join('\n')}`, 3900) };
}

/** `open` is null when the company's plan does not show the service's incidents. */
export function serviceStatus(service: ServiceWithStatus, open: readonly IncidentSummary[] | null): SlackMessage {
  const head = `*${link(service.trackerUrl, service.name)}* (\`${esc(service.urlname)}\`): ${STATUS_LABEL[service.status]}`;
  if (open === null) return { text: `${head}\nYour plan does not show this service's incidents.` };
  if (open.length === 0) return { text: `${head}\nNo open incidents.` };
  const lines = open.map((i) => `• *#${i.id}* ${SEVERITY_ICON[i.status]} ${esc(i.title)}, since ${when(i.createdAt)}`);
  return { text: clip(`${head}\n${lines.join('\n')}`, 3900) };
}

export function describeSubscription(s: ChannelSubscription): string {
  switch (s.kind) {
    case 'incidents':
      return "incidents of your company's services";
    case 'service':
      return `status changes of ${esc(s.service!.name)} (\`${esc(s.service!.urlname)}\`)`;
    case 'monitor':
      return `monitor ${esc(s.monitor!.name)} going down and recovering`;
    case 'board': {
      const d = s.digest!;
      const flags = [d.onlyOnChange ? 'only on change' : null, d.editInPlace ? 'edited in place' : null].filter(Boolean);
      return `the digest of board ${esc(s.board!.name)} (\`${esc(s.board!.urlname)}\`), \`${esc(d.schedule)}\` ${esc(d.timezone)}${flags.length ? `, ${flags.join(', ')}` : ''}`;
    }    default: {
      const unknown: never = s.kind;
      return String(unknown);
    }
  }
}

export function subscriptionList(subscriptions: readonly ChannelSubscription[]): SlackMessage {
  if (subscriptions.length === 0) {
    return { text: 'This channel follows nothing yet. Try `/statusbot subscribe incidents`.' };
  }
  return { text: `*This channel follows*\n${subscriptions.map((s) => `• ${describeSubscription(s)}`).join('\n')}` };
}

export const NOT_LINKED =
  'This Slack workspace is not linked to a statusbot company yet: run `/statusbot link <api-key>` with an API key of your company.';

export const HELP = [
  '*statusbot*',
  '`/incident new` — open an incident (a form)',
  '`/incident update <id>` — change it or post an update (a form)',
  '`/incident resolve <id> [message]` — resolve it',
  '`/incident list` — open incidents of your company',
  '`/incident show <id>` — an incident and its updates',
  '`/status <service>` — a service\'s status and open incidents',
  '`/statusbot subscribe incidents` — announce your incidents in this channel',
  '`/statusbot subscribe service <urlname>` — announce a service\'s status changes here',
  '`/statusbot subscribe monitor <id-or-name>` — announce when one of your monitors goes down or recovers',
  '`/statusbot subscribe board <urlname-or-id> [schedule="0 9 * * 1-5"] [timezone=Europe/Berlin] [only-on-change] [edit-in-place]` — post a board\'s digest here',
  '`/statusbot unsubscribe incidents | service <urlname> | monitor <id-or-name> | board <urlname-or-id>`',
  '`/statusbot subscriptions` — what this channel follows',
  '`/statusbot link <api-key>` — make this workspace act for your company (the key is not shown to anyone)',
].join('\n');
