import type { types as slack } from '@slack/bolt';
import type { Incident, IncidentSummary, Severity } from '../../src/domain/model/incident.js';
import type {
  DigestAnnouncement,
  IncidentAnnouncement,
  MaintenanceAnnouncement,
  MonitorAnnouncement,
  RoomFailed,
  RoomSummary,
  StatusChangeAnnouncement,
} from '../../src/domain/notifications/announcement.js';
import { MAINTENANCE_EVENT_LABEL, maintenanceTime } from '../chat/maintenance-verbs.js';
import type { ServiceDetail, ServiceWithStatus } from '../../src/domain/model/service.js';
import { reasonText, shownStatus } from '../../src/domain/model/shown-status.js';
import type { ShownStatus } from '../../src/domain/model/shown-status.js';
import type { ChatRenderer } from '../chat/delivery.js';
import { SEVERITY_LABEL, STAGE_LABEL, STATUS_LABEL as STATUS_WORDS } from '../chat/labels.js';
import type { ChatReply } from '../chat/reply.js';
import {
  NO_OPEN_INCIDENTS,
  PLAN_HIDES_INCIDENTS,
  REPORT_BUTTON,
  UNCONFIRMED,
  componentsLine,
  digestSummary,
  memberName,
  offersActions,
  roomFailedText,
  roomSummaryLines,
} from '../chat/wording.js';
import { SLACK_DIALECT, esc, mrkdwn } from './dialect.js';
import { clipWithEllipsis as clip } from '../../src/domain/clip-text.js';

/** A message as chat.postMessage, chat.update and response_url take it. */
export interface SlackMessage {
  text: string;
  blocks?: slack.KnownBlock[];
}

export const ACTION_POST_UPDATE = 'incident_post_update';
export const ACTION_RESOLVE = 'incident_resolve';
export const ACTION_REPORT = 'service_report';

const SEVERITY_ICON: Record<Severity, string> = { minor: ':large_yellow_circle:', major: ':red_circle:' };
const STATUS_ICON: Record<ShownStatus, string> = {
  ok: ':white_check_mark:',
  minor: ':large_yellow_circle:',
  major: ':red_circle:',
  maintenance: ':wrench:',
  unknown: ':white_circle:',
};
const STATUS_LABEL = Object.fromEntries(
  Object.entries(STATUS_ICON).map(([status, icon]) => [status, `${icon} ${STATUS_WORDS[status as ShownStatus]}`]),
) as Record<ShownStatus, string>;

// Block Kit's limits: 3000 characters in a section, 150 in a header.
const SECTION_MAX = 2900;
const HEADER_MAX = 140;

/** Shown in each reader's own time zone; the ISO text where a client cannot. */
const when = (at: string | Date): string => {
  const iso = typeof at === 'string' ? at : at.toISOString();
  return `<!date^${Math.floor(Date.parse(iso) / 1000)}^{date_short_pretty} {time}|${iso}>`;
};
const link = SLACK_DIALECT.markup.link;
const section = (text: string): slack.SectionBlock => ({ type: 'section', text: { type: 'mrkdwn', text: clip(text, SECTION_MAX) } });
const context = (text: string): slack.ContextBlock => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });

/** "Post update" always (on a resolved incident it reopens it), "Resolve" while open. */
function incidentButtons(id: number, resolved: boolean): slack.ActionsBlock {
  const buttons: slack.Button[] = [{ type: 'button', action_id: ACTION_POST_UPDATE, text: { type: 'plain_text', text: 'Post update' }, value: String(id) }];
  if (!resolved) {
    buttons.push({ type: 'button', action_id: ACTION_RESOLVE, style: 'primary', text: { type: 'plain_text', text: 'Resolve' }, value: String(id) });
  }
  return { type: 'actions', block_id: `incident:${id}`, elements: buttons };
}

/** The one message that shows an incident in a channel; edited in place as it changes. */
function incidentMessage(a: IncidentAnnouncement): SlackMessage {
  const i = a.incident;
  const deleted = a.event === 'deleted';
  const state = deleted ? ':wastebasket: Deleted' : i.resolved ? ':white_check_mark: Resolved' : `${SEVERITY_ICON[i.severity]} ${SEVERITY_LABEL[i.severity]}`;
  const blocks: slack.KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(`#${i.id} ${i.title}`, HEADER_MAX) } },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Service*\n${esc(i.service.name)}` },
        { type: 'mrkdwn', text: `*State*\n${state}` },
        { type: 'mrkdwn', text: `*Severity*\n${SEVERITY_LABEL[i.severity]}` },
        { type: 'mrkdwn', text: `*Stage*\n${i.stage ? STAGE_LABEL[i.stage] : '–'}` },
        ...(i.lead ? [{ type: 'mrkdwn' as const, text: `*Lead*\n${memberName(SLACK_DIALECT, i.lead)}` }] : []),
      ],
    },
  ];
  if (a.source === 'users') blocks.push(context(`:warning: ${UNCONFIRMED}`));
  if (i.description.trim()) blocks.push(section(mrkdwn(i.description)));
  const affected = componentsLine(a.incident.components);
  if (affected) blocks.push(context(esc(affected)));
  const times = [`Opened ${when(i.createdAt)}`, `updated ${when(i.updatedAt)}`];
  if (i.resolvedAt) times.push(`resolved ${when(i.resolvedAt)}`);
  const links = [link(i.trackerUrl, 'details'), ...(i.url ? [link(i.url, 'provider')] : [])];
  blocks.push(context(`${times.join(' · ')} · ${links.join(' · ')}`));
  if (offersActions(a)) blocks.push(incidentButtons(i.id, i.resolved));
  return { text: `${deleted ? 'Deleted' : i.resolved ? 'Resolved' : SEVERITY_LABEL[i.severity]} incident #${i.id}: ${i.title} (${i.service.name})`, blocks };
}

/** An update of the incident, posted in the thread of its message. */
function updateReply(_a: IncidentAnnouncement, u: NonNullable<IncidentAnnouncement['update']>): SlackMessage {
  const text = `*${STAGE_LABEL[u.stage]}*${u.description.trim() ? ` — ${mrkdwn(u.description)}` : ''}`;
  return { text: clip(text, SECTION_MAX), blocks: [section(text), context(when(u.createdAt))] };
}

function statusChangeMessage(a: StatusChangeAnnouncement): SlackMessage {
  const s = a.service;
  const headline = `${link(s.trackerUrl, s.name)} is now *${STATUS_LABEL[a.to]}* (was ${STATUS_LABEL[a.from]})`;
  const note = [when(a.at), ...(a.cause ? [esc(a.cause)] : [])].join(' · ');
  return {
    text: `${s.name} is now ${STATUS_LABEL[a.to].replace(/^:[a-z_]+: /, '')}`,
    blocks: [section(headline), context(note)],
  };
}

function monitorMessage(a: MonitorAnnouncement): SlackMessage {
  const down = a.change === 'down';
  const headline = `${down ? ':red_circle:' : ':white_check_mark:'} Monitor *${esc(a.monitor.name)}* ${down ? 'is down' : 'recovered'}${a.monitor.url ? ` (${esc(a.monitor.url)})` : ''}`;
  return {
    text: `Monitor ${a.monitor.name} ${down ? 'is down' : 'recovered'}`,
    blocks: [section(headline), context(`${when(a.at)} · ${esc(a.region)}${a.description ? ` · ${esc(a.description)}` : ''}`)],
  };
}

function maintenanceMessage(a: MaintenanceAnnouncement): SlackMessage {
  const m = a.maintenance;
  const label = MAINTENANCE_EVENT_LABEL[a.event];
  const headline = `${STATUS_ICON.maintenance} *${label}*: ${link(m.trackerUrl, m.title)}`;
  const said = a.update?.description.trim() || m.description.trim();
  const window = `${maintenanceTime(new Date(m.startsAt))} to ${maintenanceTime(new Date(m.endsAt))} · ${esc(m.services.map((s) => s.name).join(', '))}`;
  return {
    text: `${label}: ${m.title}`,
    blocks: [section(said ? `${headline}\n${mrkdwn(said)}` : headline), context(window)],
  };
}

// Block Kit allows 50 blocks in a message.
const DIGEST_SECTIONS_MAX = 45;

/** A board's services, worst first, packed into as few sections as fit. */
function digestMessage(a: DigestAnnouncement): SlackMessage {
  const lines = a.services.map((s) => {
    const tags = s.tags.length ? ` _${s.tags.map(esc).join(', ')}_` : '';
    const incidents = s.openIncidents.map(
      (i) =>
        `\n    ${SEVERITY_ICON[i.severity]} ${i.url ? link(i.url, i.title) : esc(i.title)}${i.components?.length ? ` _(${esc(i.components.join(', '))})_` : ''}`,
    );
    const noData = s.status === 'unknown' ? ` — No data${s.noData ? `: ${esc(s.noData)}` : ''}` : '';
    const maintenances = (s.maintenances ?? []).map(
      (m) =>
        `\n    ${STATUS_ICON.maintenance} ${m.url ? link(m.url, m.name) : esc(m.name)}, ${`from ${when(m.startsAt)}${m.endsAt ? ` to ${when(m.endsAt)}` : ''}`}${m.components.length ? ` _(${esc(m.components.join(', '))})_` : ''}`,
    );
    return `${STATUS_LABEL[s.status].split(' ')[0]} ${link(s.trackerUrl, s.name)}${tags}${noData}${incidents.join('')}${maintenances.join('')}`;
  });
  const sections: string[] = [];
  for (const line of lines.length ? lines : ['_This board has no services._']) {
    const last = sections.at(-1);
    if (last !== undefined && last.length + line.length + 1 <= SECTION_MAX) sections[sections.length - 1] = `${last}\n${line}`;
    else sections.push(line);
  }
  const summary = digestSummary(a);
  return {
    text: `${a.board.name}: ${summary}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(`${a.board.name} — status digest`, HEADER_MAX) } },
      ...sections.slice(0, DIGEST_SECTIONS_MAX).map(section),
      context(`${summary} · ${when(a.at)}`),
    ],
  };
}

function incidentList(incidents: readonly IncidentSummary[]): SlackMessage {
  if (incidents.length === 0) return { text: `${NO_OPEN_INCIDENTS} :tada:` };
  const lines = incidents.map((i) => `• *#${i.id}* ${SEVERITY_ICON[i.status]} ${esc(i.title)} — ${esc(i.serviceName)}, since ${when(i.createdAt)}`);
  return { text: clip(`*Open incidents (${incidents.length})*\n${lines.join('\n')}`, 3900) };
}

function incidentTimeline(i: Incident, actions: boolean): SlackMessage {
  const state = i.resolved ? ':white_check_mark: Resolved' : `${SEVERITY_ICON[i.status]} ${SEVERITY_LABEL[i.status]}, open`;
  const affected = componentsLine(i.components);
  const head = `*#${i.id} ${esc(i.title)}* — ${esc(i.serviceName)} · ${state} · ${link(i.trackerUrl, 'details')}${affected ? `\n_${esc(affected)}_` : ''}`;
  const updates = i.updates.map((u) => `• ${when(u.createdAt)} *${STAGE_LABEL[u.stage]}*${u.description.trim() ? ` — ${mrkdwn(u.description)}` : ''}`);
  const text = clip(`${head}\n${updates.join('\n')}`, 3900);
  return actions ? { text, blocks: [section(text), incidentButtons(i.id, i.resolved)] } : { text };
}

/** Whoever may read a service's incidents may report a problem with it. */
const reportButton = (service: ServiceWithStatus): slack.ActionsBlock => ({
  type: 'actions',
  block_id: 'service_report',
  elements: [{ type: 'button', action_id: ACTION_REPORT, text: { type: 'plain_text', text: REPORT_BUTTON }, value: service.urlname }],
});

function serviceStatus(service: ServiceDetail, open: readonly IncidentSummary[] | null): SlackMessage {
  const shown = shownStatus(service.status, service.knowledge);
  const reason = reasonText(shown);
  const noData = reason ? ` — ${esc(reason)}` : '';
  const head = `*${link(service.trackerUrl, service.name)}* (\`${esc(service.urlname)}\`): ${STATUS_LABEL[shown.status]}${noData}`;
  const page = service.statusPageUrl ? `\nStatus page: ${link(service.statusPageUrl, service.statusPageUrl)}` : '';
  if (open === null) return { text: `${head}${page}\n${PLAN_HIDES_INCIDENTS}` };
  const lines = open.map((i) => `• *#${i.id}* ${SEVERITY_ICON[i.status]} ${esc(i.title)}, since ${when(i.createdAt)}`);
  const text = clip(`${head}${page}\n${lines.length ? lines.join('\n') : NO_OPEN_INCIDENTS}`, 3900);
  return { text, blocks: [section(text), reportButton(service)] };
}

/** A verb's answer as a Slack message; forms open as modals instead (modals.ts). */
export function replyMessage(reply: Exclude<ChatReply, { kind: 'form' }>): SlackMessage {
  switch (reply.kind) {
    case 'text':
    case 'error':
      return { text: clip(reply.text, 3900) };
    case 'incidents':
      return incidentList(reply.incidents);
    case 'incident':
      return incidentTimeline(reply.incident, reply.actions);
    case 'service':
      return serviceStatus(reply.service, reply.open);
    case 'file':
      // Posted as a file by the command; what is said of it otherwise.
      return { text: reply.posted };
  }
}

/** The announcements in Block Kit, for the delivery state machine. */
function roomFailedMessage(a: RoomFailed): SlackMessage {
  const text = roomFailedText(SLACK_DIALECT, a);
  return { text, blocks: [section(`:warning: ${text}`)] };
}

function roomSummaryMessage(a: RoomSummary): SlackMessage {
  const [headline, ...facts] = roomSummaryLines(SLACK_DIALECT, a);
  return { text: `Incident #${a.incident.id} resolved: ${a.incident.title}`, blocks: [section(`:white_check_mark: ${headline}`), section(facts.join('\n'))] };
}

export const slackRenderer: ChatRenderer<SlackMessage> = {
  incident: incidentMessage,
  update: updateReply,
  statusChange: statusChangeMessage,
  monitor: monitorMessage,
  digest: digestMessage,
  maintenance: maintenanceMessage,
  roomFailed: roomFailedMessage,
  roomSummary: roomSummaryMessage,
};
