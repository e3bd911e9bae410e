import type { ChannelSubscription } from '../../src/domain/model/channel.js';
import type { ChatMember, DigestAnnouncement, IncidentAnnouncement, RoomFailed, RoomSummary } from '../../src/domain/notifications/announcement.js';
import { DomainError } from '../../src/domain/errors.js';
import type { Logger } from '../../src/infrastructure/logger.js';
import type { ChatDialect, ChatRight, Syntax } from './dialect.js';
import { plural } from '../../src/domain/plural.js';

/**
 * Every text statusbot says in chat, written once for both platforms in the
 * platform's markup; the platform supplies its nouns and command syntax.
 */
export const UNEXPECTED_FAILURE = 'Something went wrong on our side; it has been logged. Please try again.';

/** The one mapping from a failure to the text a chat user reads. Unexpected failures are logged here and never shown in detail. */
export function errorText(d: ChatDialect, error: unknown, logger: Logger, doing: string): string {
  const m = d.markup;
  if (!(error instanceof DomainError)) {
    logger.error(`${d.platform}: ${doing} failed`, error);
    return UNEXPECTED_FAILURE;
  }
  const code = error.code;
  switch (code) {
    case 'unauthorized':
      // Never the key itself: the user already has it, and the answer may be seen or logged elsewhere.
      return `That API key is not valid; nothing was changed. Use a key of your statusbot company (from the config file or ${m.code('statusbot key create')}).`;
    case 'not_found':
      return `${m.text(error.message)}.`;
    case 'forbidden':
      return `Not allowed: ${m.text(error.message)}.`;
    case 'conflict':
      return `Not done: ${m.text(error.message)}.`;
    case 'invalid_input': {
      const issues = error.issues.length > 0 ? error.issues.map((i) => m.text(i.message)) : [m.text(error.message)];
      return issues.length === 1
        ? `Please check: ${issues[0]}. Nothing was changed.`
        : ['Please check (nothing was changed):', ...issues.map((i) => `• ${i}`)].join('\n');
    }
    default: {
      const unhandled: never = code;
      logger.error(`${d.platform}: unmapped domain error ${String(unhandled)}`);
      return UNEXPECTED_FAILURE;
    }
  }
}

export const notLinked = (d: ChatDialect): string =>
  `This ${d.workspace} is not linked to a statusbot company yet: run ${d.markup.code(d.syntax.link)} with an API key of your company (${d.holders.link_workspace} may).`;

export const noRight = (d: ChatDialect, right: ChatRight): string =>
  right === 'link_workspace'
    ? `only ${d.holders.link_workspace} may link this ${d.workspace}`
    : `only ${d.holders.manage_channel} may change what a channel follows`;

export const usage = (d: ChatDialect, syntax: Syntax): string => `Usage: ${d.markup.code(d.syntax[syntax])}`;

export const unknownCommand = (d: ChatDialect, typed: string): string => `There is no ${d.markup.code(typed)}.\n\n${help(d)}`;

const HELP: readonly [Syntax, string][] = [
  ['incident_new', 'open an incident (a form)'],
  ['incident_update', 'change it or post an update (a form)'],
  ['incident_resolve', 'resolve it'],
  ['incident_list', 'open incidents of your company'],
  ['incident_show', 'an incident and its updates'],
  ['incident_lead', 'name who leads it (in its room, the id may be left out)'],
  ['incident_room', 'open a channel of its own'],
  ['incident_note', "add a note to the timeline of the room's incident (or pin a message there with 📌)"],
  ['incident_postmortem', 'post its postmortem here as a Markdown file (in its room, the id may be left out)'],
  ['status', "a service's status and open incidents"],
  ['report', 'report a problem with a service (an unconfirmed incident once several people do)'],
  ['subscribe_incidents', 'announce your incidents in this channel'],
  ['subscribe_service', "announce a service's status changes here"],
  ['subscribe_monitor', 'announce when one of your monitors goes down or recovers'],
  ['subscribe_board', "post a board's digest here"],
  ['unsubscribe', 'stop following one of those'],
  ['subscriptions', 'what this channel follows'],
  ['maintenance', 'upcoming and current maintenance of your services'],
  ['link', 'make this workspace act for your company (the key is not shown to anyone)'],
];

export function help(d: ChatDialect): string {
  const m = d.markup;
  return [
    m.bold('statusbot'),
    ...HELP.map(([syntax, what]) => `${m.code(d.syntax[syntax])} — ${what}`),
    `Linking needs ${d.holders.link_workspace}; subscribing and unsubscribing need ${d.holders.manage_channel}.`,
  ].join('\n');
}

export const linked = (d: ChatDialect, company: string): string =>
  `This ${d.workspace} now acts for ${d.markup.bold(d.markup.text(company))}. Try ${d.markup.code(d.syntax.subscribe_incidents)} in a channel.`;

export function describeSubscription(d: ChatDialect, s: ChannelSubscription): string {
  const m = d.markup;
  switch (s.kind) {
    case 'incidents':
      return "incidents of your company's services";
    case 'service':
      return `status changes of ${m.text(s.service!.name)} (${m.code(s.service!.urlname)})`;
    case 'monitor':
      return `monitor ${m.text(s.monitor!.name)} (#${s.monitor!.id}) going down and recovering`;
    case 'board': {
      const digest = s.digest!;
      const flags = [digest.onlyOnChange ? 'only on change' : null, digest.editInPlace ? 'edited in place' : null].filter(Boolean);
      return `the digest of board ${m.text(s.board!.name)} (${m.code(s.board!.urlname)}) at ${m.code(digest.schedule)} ${digest.timezone}${flags.length ? `, ${flags.join(', ')}` : ''}`;
    }
  }
}

export const subscribed = (d: ChatDialect, s: ChannelSubscription): string =>
  `This channel now follows ${describeSubscription(d, s)}.${d.subscribeHint ? ` ${d.subscribeHint}` : ''}`;

export const unsubscribed = (d: ChatDialect, what: string): string => `This channel no longer follows ${d.markup.text(what)}.`;

export function subscriptionList(d: ChatDialect, subscriptions: readonly ChannelSubscription[]): string {
  if (subscriptions.length === 0) return `This channel follows nothing yet. Try ${d.markup.code(d.syntax.subscribe_incidents)}.`;
  return [d.markup.bold('This channel follows'), ...subscriptions.map((s) => `• ${describeSubscription(d, s)}`)].join('\n');
}

export const noCustomServices = (d: ChatDialect): string =>
  `Your company has no custom services to open an incident on; declare them under ${d.markup.code('custom_services')} in the config.`;

export const incidentDone = (d: ChatDialect, done: 'Opened' | 'Updated' | 'Resolved', incident: { id: number; title: string; serviceName: string }): string =>
  `${done} incident ${d.markup.bold(`#${incident.id}`)}${done === 'Opened' ? ` on ${d.markup.text(incident.serviceName)}` : ''}: ${d.markup.text(incident.title)}`;

export function reported(d: ChatDialect, service: string, reporters: number, minutes: number): string {
  const people = plural(reporters, 'person', 'people');
  const span = minutes === 1 ? 'the last minute' : `the last ${minutes} minutes`;
  return `Thanks: your report of a problem with ${d.markup.text(service)} is noted (${people} reported it in ${span}).`;
}

export const REPORT_BUTTON = 'Report a problem';

export const didYouMean = (d: ChatDialect, typed: string, similar: readonly { urlname: string; name: string }[]): string =>
  `There is no service ${d.markup.code(typed)}. Did you mean ${similar.map((s) => `${d.markup.code(s.urlname)} (${d.markup.text(s.name)})`).join(', ')}?`;

export const NO_OPEN_INCIDENTS = 'No open incidents.';
export const PLAN_HIDES_INCIDENTS = "Your plan does not show this service's incidents.";
export const DIRECT_MESSAGES = 'statusbot works in channels of a linked workspace, not in direct messages.';
export const FORM_NOT_OPENED = 'The form could not be opened in time; please try again.';
export const STALE_CONTROL = 'This button or form is no longer supported; run the command again.';
export const slowDown = (seconds: number): string => `Too many requests at once; nothing was done. Please try again in ${plural(seconds, 'second')}.`;

/** Whether an incident's message offers Post update and Resolve: only for the company's own incidents, until deleted. */
export const offersActions = (a: IncidentAnnouncement): boolean => a.event !== 'deleted' && (a.source ?? 'company') === 'company';

/** How a message marks an incident opened from user reports. */
export const UNCONFIRMED = 'Unconfirmed: reported by users, not by the provider';

/** The affected components, as a message lists them; empty when none are named. */
/** The vendor's components an incident touches, as one line; empty when it names none. */
export const componentsLine = (names: readonly string[] | undefined): string => (names?.length ? `Affected: ${names.join(', ')}` : '');

/** A digest's one-line summary: how many of its services have issues, and how many statusbot has no data for. */
export function digestSummary(a: DigestAnnouncement): string {
  const issues = a.services.filter((s) => s.status !== 'ok' && s.status !== 'unknown').length;
  const unknown = a.services.filter((s) => s.status === 'unknown').length;
  if (issues === 0 && unknown === 0) return 'all services operational';
  const parts = [];
  if (issues > 0) parts.push(`${issues} of ${a.services.length} services with issues`);
  if (unknown > 0) parts.push(`${unknown} of ${a.services.length} without data`);
  return parts.join(', ');
}

/** A member as a message names them: a mention on their own platform (which notifies nobody, see allowed mentions). */
export const memberName = (d: ChatDialect, member: ChatMember): string =>
  member.platform === d.platform ? `<@${member.userId}>` : `${member.userId} (${member.platform})`;

export const leadSet = (d: ChatDialect, incidentId: number, lead: ChatMember): string =>
  `${memberName(d, lead)} now leads incident ${d.markup.bold(`#${incidentId}`)}.`;

export const roomAsked = (d: ChatDialect, incidentId: number, room: { name: string; state: string; channelId: string | null }, queued: boolean): string => {
  if (room.state === 'open' && room.channelId) return `Incident ${d.markup.bold(`#${incidentId}`)} has its room: <#${room.channelId}>.`;
  return queued
    ? `Opening ${d.markup.code(`#${room.name}`)} for incident ${d.markup.bold(`#${incidentId}`)}; its message and updates will be posted there.`
    : `The room ${d.markup.code(`#${room.name}`)} of incident ${d.markup.bold(`#${incidentId}`)} is being opened.`;
};

/** What a postmortem's file is introduced with in the channel. */
export const postmortemComment = (d: ChatDialect, incident: { id: number; title: string }): string =>
  `Postmortem of incident ${d.markup.bold(`#${incident.id}`)}: ${d.markup.text(incident.title)}`;

export const postmortemPosted = (d: ChatDialect, incidentId: number): string =>
  `Postmortem of incident ${d.markup.bold(`#${incidentId}`)} posted as a file in this channel.`;

export const postmortemFailed = (d: ChatDialect, incidentId: number): string =>
  `The postmortem of incident ${d.markup.bold(`#${incidentId}`)} could not be posted in this channel; it has been logged. Please try again, or read it at ${d.markup.code(`GET /api/v2/incidents/${incidentId}/postmortem`)}.${d.subscribeHint ? ` ${d.subscribeHint}` : ''}`;

export const noteTaken = (d: ChatDialect, incidentId: number): string => `Noted on the timeline of incident ${d.markup.bold(`#${incidentId}`)}.`;

const ROOM_REASONS: Readonly<Record<string, string>> = {
  name_taken: 'a channel of that name exists already',
  missing_scope: 'the app lacks a permission to open channels (reinstall it with the scopes of manifest.yml)',
  restricted_action: "the workspace's settings do not let the app open channels",
  missing_permissions: 'the bot lacks the Manage Channels permission in this server',
};

/** Why a room could not be opened, and the way to try again. */
export const roomFailedText = (d: ChatDialect, a: RoomFailed): string =>
  `Could not open ${d.markup.code(`#${a.name}`)} for incident ${d.markup.bold(`#${a.incidentId}`)}: ${ROOM_REASONS[a.reason] ?? d.markup.text(a.reason)}. Run ${d.markup.code(d.syntax.incident_room)} with its id to try again.`;

/** "1 h 5 min", "3 min", "2 d 4 h". */
export function duration(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${rest} min`;
  return `${rest} min`;
}

/** What a resolved incident's room is told, one line a fact. */
export function roomSummaryLines(d: ChatDialect, a: RoomSummary): string[] {
  const m = d.markup;
  return [
    `${m.bold(`Incident #${a.incident.id} resolved`)}: ${m.text(a.incident.title)}`,
    `Duration: ${duration(Date.parse(a.incident.resolvedAt) - Date.parse(a.incident.createdAt))}`,
    `Lead: ${a.lead ? memberName(d, a.lead) : 'nobody was named'}`,
    `Updates: ${a.updates} · Notes: ${a.notes}`,
    m.link(a.incident.trackerUrl, 'details'),
  ];
}
