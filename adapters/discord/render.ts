import { ActionRowBuilder, ButtonBuilder, ButtonStyle, Colors, EmbedBuilder, InteractionResponseType, MessageFlags, TimestampStyles, time } from 'discord.js';
import type {
  APIActionRowComponent,
  APIComponentInMessageActionRow,
  APIEmbed,
  APIInteractionResponse,
  RawFile,
  RESTPostAPIChannelMessageJSONBody,
} from 'discord.js';
import type { Incident, IncidentSummary, ResolutionStage, Severity } from '../../src/domain/model/incident.js';
import type {
  DigestAnnouncement,
  IncidentAnnouncement,
  MaintenanceAnnouncement,
  MonitorAnnouncement,
  RoomFailed,
  RoomSummary,
  StatusChangeAnnouncement,
} from '../../src/domain/notifications/announcement.js';
import { MAINTENANCE_EVENT_LABEL } from '../chat/maintenance-verbs.js';
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
import { DISCORD_DIALECT } from './dialect.js';
import { CUSTOM_ID_MAX, customIds, formModal } from './modals.js';
import { clipWithEllipsis as clip } from '../../src/domain/clip-text.js';

const STATUS_ICON: Record<ShownStatus, string> = { ok: '🟢', minor: '🟠', major: '🔴', maintenance: '🔧', unknown: '⚪' };
const STATUS_LABEL = Object.fromEntries(
  Object.entries(STATUS_ICON).map(([status, icon]) => [status, `${icon} ${STATUS_WORDS[status as ShownStatus]}`]),
) as Record<ShownStatus, string>;
const STATUS_COLOR: Record<ShownStatus, number> = { ok: Colors.Green, minor: Colors.Orange, major: Colors.Red, maintenance: Colors.Blue, unknown: Colors.Grey };
const severityMark = (s: Severity): string => (s === 'major' ? '🔴' : '🟠');

// Discord refuses the whole message when one embed part is over its limit.
const LIMIT = { title: 256, description: 4096, fieldValue: 1024 } as const;

/** User text is shown, never allowed to ping anyone (an @everyone in a description). */
const NO_MENTIONS: { parse: [] } = { parse: [] };

/** Lines joined up to the description limit, the rest counted. */
function joinLines(lines: readonly string[], max: number = LIMIT.description): string {
  const kept: string[] = [];
  let length = 0;
  for (const [n, line] of lines.entries()) {
    if (length + line.length + 30 > max) {
      kept.push(`… and ${lines.length - n} more`);
      break;
    }
    kept.push(line);
    length += line.length + 1;
  }
  return kept.join('\n');
}

/** What an incident message shows, from an announcement or from the domain. */
interface IncidentView {
  id: number;
  title: string;
  severity: Severity;
  resolved: boolean;
  stage: ResolutionStage | null;
  description: string;
  serviceName: string;
  trackerUrl: string;
  createdAt: Date;
  resolvedAt: Date | null;
  deleted: boolean;
}

const viewOfAnnouncement = (a: IncidentAnnouncement): IncidentView => ({
  id: a.incident.id,
  title: a.incident.title,
  severity: a.incident.severity,
  resolved: a.incident.resolved,
  stage: a.incident.stage,
  description: a.incident.description,
  serviceName: a.incident.service.name,
  trackerUrl: a.incident.trackerUrl,
  createdAt: new Date(a.incident.createdAt),
  resolvedAt: a.incident.resolvedAt ? new Date(a.incident.resolvedAt) : null,
  deleted: a.event === 'deleted',
});

const viewOfIncident = (i: Incident): IncidentView => ({
  id: i.id,
  title: i.title,
  severity: i.status,
  resolved: i.resolved,
  stage: i.updates.at(-1)?.stage ?? null,
  description: i.description,
  serviceName: i.serviceName,
  trackerUrl: i.trackerUrl,
  createdAt: i.createdAt,
  resolvedAt: i.resolvedAt,
  deleted: false,
});

function incidentEmbed(v: IncidentView): EmbedBuilder {
  const mark = v.deleted ? '🗑️' : v.resolved ? '✅' : severityMark(v.severity);
  const color = v.deleted ? Colors.Grey : v.resolved ? Colors.Green : v.severity === 'major' ? Colors.Red : Colors.Orange;
  const embed = new EmbedBuilder()
    .setTitle(clip(`${mark} #${v.id} ${v.title}${v.deleted ? ' (deleted)' : ''}`, LIMIT.title))
    .setURL(v.trackerUrl)
    .setColor(color)
    .addFields(
      { name: 'Service', value: clip(v.serviceName, LIMIT.fieldValue), inline: true },
      { name: 'Severity', value: SEVERITY_LABEL[v.severity], inline: true },
      { name: 'Stage', value: v.stage ? STAGE_LABEL[v.stage] : '—', inline: true },
      { name: 'Started', value: time(v.createdAt, TimestampStyles.RelativeTime), inline: true },
    );
  if (v.resolvedAt) embed.addFields({ name: 'Resolved', value: time(v.resolvedAt, TimestampStyles.RelativeTime), inline: true });
  if (v.description.trim()) embed.setDescription(clip(v.description, LIMIT.description));
  return embed;
}

/** "Post update" always (on a resolved incident it reopens it), "Resolve" while open. */
function incidentButtons(id: number, resolved: boolean): APIActionRowComponent<APIComponentInMessageActionRow> {
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(customIds.updateIncident(id)).setLabel('Post update').setStyle(ButtonStyle.Primary),
  );
  if (!resolved) {
    row.addComponents(new ButtonBuilder().setCustomId(customIds.resolveIncident(id)).setLabel('Resolve').setStyle(ButtonStyle.Success));
  }
  return row.toJSON();
}

/** The one message that shows an incident's current state in a channel. */
function incidentMessage(a: IncidentAnnouncement): RESTPostAPIChannelMessageJSONBody {
  const view = viewOfAnnouncement(a);
  const embed = incidentEmbed(view).setTimestamp(new Date(a.incident.updatedAt));
  if (a.incident.lead) embed.addFields({ name: 'Lead', value: memberName(DISCORD_DIALECT, a.incident.lead), inline: true });
  const notes = [a.source === 'users' ? `⚠️ ${UNCONFIRMED}` : '', componentsLine(a.incident.components)].filter(Boolean);
  if (notes.length) embed.setFooter({ text: clip(notes.join(' · '), 2048) });
  return {
    embeds: [embed.toJSON()],
    components: offersActions(a) ? [incidentButtons(view.id, view.resolved)] : [],
    allowed_mentions: NO_MENTIONS,
  };
}

/** An update, posted as a reply to the incident's message. */
function updateReply(a: IncidentAnnouncement, update: NonNullable<IncidentAnnouncement['update']>): RESTPostAPIChannelMessageJSONBody {
  const embed = new EmbedBuilder()
    .setTitle(clip(`${STAGE_LABEL[update.stage]} · #${a.incident.id} ${a.incident.title}`, LIMIT.title))
    .setURL(a.incident.trackerUrl)
    .setColor(update.stage === 'resolved' ? Colors.Green : a.incident.severity === 'major' ? Colors.Red : Colors.Orange)
    .setTimestamp(new Date(update.createdAt));
  if (update.description.trim()) embed.setDescription(clip(update.description, LIMIT.description));
  return { embeds: [embed.toJSON()], allowed_mentions: NO_MENTIONS };
}

function statusChangeMessage(a: StatusChangeAnnouncement): RESTPostAPIChannelMessageJSONBody {
  const embed = new EmbedBuilder()
    .setTitle(clip(`${a.service.name}: ${STATUS_LABEL[a.to]}`, LIMIT.title))
    .setURL(a.service.trackerUrl)
    .setColor(STATUS_COLOR[a.to])
    .setDescription(clip(`Was ${STATUS_LABEL[a.from]}.${a.cause ? `\n${a.cause}` : ''}`, LIMIT.description))
    .setTimestamp(new Date(a.at));
  return { embeds: [embed.toJSON()], allowed_mentions: NO_MENTIONS };
}

function monitorMessage(a: MonitorAnnouncement): RESTPostAPIChannelMessageJSONBody {
  const down = a.change === 'down';
  const embed = new EmbedBuilder()
    .setTitle(clip(`${down ? '🔴' : '🟢'} ${a.monitor.name} ${down ? 'is down' : 'recovered'}`, LIMIT.title))
    .setColor(down ? Colors.Red : Colors.Green)
    .setDescription(clip(`${a.description}\n${a.monitor.url ? `${a.monitor.url} · ` : ''}region ${a.region}`, LIMIT.description))
    .setTimestamp(new Date(a.at));
  return { embeds: [embed.toJSON()], allowed_mentions: NO_MENTIONS };
}

function maintenanceMessage(a: MaintenanceAnnouncement): RESTPostAPIChannelMessageJSONBody {
  const m = a.maintenance;
  const said = a.update?.description.trim() || m.description.trim();
  const window = `${time(new Date(m.startsAt), TimestampStyles.ShortDateTime)} to ${time(new Date(m.endsAt), TimestampStyles.ShortDateTime)}`;
  const embed = new EmbedBuilder()
    .setTitle(clip(`🔧 ${MAINTENANCE_EVENT_LABEL[a.event]}: ${m.title}`, LIMIT.title))
    .setURL(m.trackerUrl)
    .setColor(a.event === 'completed' || a.event === 'cancelled' ? Colors.Green : Colors.Blue)
    .setDescription(clip([said, window, m.services.map((s) => s.name).join(', ')].filter(Boolean).join('\n'), LIMIT.description));
  return { embeds: [embed.toJSON()], allowed_mentions: NO_MENTIONS };
}

/** A board's services, worst first as the domain ordered them, with their tags and open incidents. */
function digestMessage(a: DigestAnnouncement): RESTPostAPIChannelMessageJSONBody {
  const worst = a.services.find((s) => s.status !== 'ok')?.status ?? 'ok';
  const lines = a.services.map((s) => {
    const tags = s.tags.length ? ` · _${clip(s.tags.join(', '), 120)}_` : '';
    const incidents = s.openIncidents
      .slice(0, 3)
      .map((i) => `\n  ${severityMark(i.severity)} ${clip(i.title, 120)}${i.components?.length ? ` _(${clip(i.components.join(', '), 120)})_` : ''}`)
      .join('');
    const noData = s.status === 'unknown' && s.noData ? ` — ${clip(s.noData, 200)}` : '';
    const maintenances = (s.maintenances ?? [])
      .slice(0, 3)
      .map(
        (m) =>
          `\n  🔧 ${clip(m.name, 120)}, from ${time(new Date(m.startsAt), TimestampStyles.ShortDateTime)}${m.endsAt ? ` to ${time(new Date(m.endsAt), TimestampStyles.ShortDateTime)}` : ''}${m.components.length ? ` _(${clip(m.components.join(', '), 120)})_` : ''}`,
      )
      .join('');
    return `${STATUS_LABEL[s.status]} · [${clip(s.name, 80)}](${s.trackerUrl})${tags}${noData}${incidents}${maintenances}`;
  });
  const embed = new EmbedBuilder()
    .setTitle(clip(`Board ${a.board.name}`, LIMIT.title))
    .setColor(STATUS_COLOR[worst])
    .setDescription(lines.length ? joinLines(lines) : 'This board has no services.')
    .setFooter({ text: digestSummary(a) })
    .setTimestamp(new Date(a.at));
  return { embeds: [embed.toJSON()], components: [], allowed_mentions: NO_MENTIONS };
}

/** The announcements as embeds, for the delivery state machine. */
export const discordRenderer: ChatRenderer<RESTPostAPIChannelMessageJSONBody> = {
  incident: incidentMessage,
  update: updateReply,
  statusChange: statusChangeMessage,
  monitor: monitorMessage,
  digest: digestMessage,
  maintenance: maintenanceMessage,
  roomFailed: (a: RoomFailed) => ({ content: `⚠️ ${roomFailedText(DISCORD_DIALECT, a)}`, allowed_mentions: NO_MENTIONS }),
  roomSummary: roomSummaryMessage,
};

function roomSummaryMessage(a: RoomSummary): RESTPostAPIChannelMessageJSONBody {
  const [headline, ...facts] = roomSummaryLines(DISCORD_DIALECT, a);
  const embed = new EmbedBuilder()
    .setTitle(clip(`✅ Incident #${a.incident.id} resolved: ${a.incident.title}`, LIMIT.title))
    .setURL(a.incident.trackerUrl)
    .setColor(Colors.Green)
    .setDescription(clip([headline, ...facts].join('\n'), LIMIT.description));
  return { embeds: [embed.toJSON()], allowed_mentions: NO_MENTIONS };
}

const CONTENT_MAX = 2000;

/** A reply to an interaction, seen only by whoever asked: channels hear of incidents through announcements. */
function ephemeral(data: {
  content?: string;
  embeds?: APIEmbed[];
  components?: APIActionRowComponent<APIComponentInMessageActionRow>[];
}): APIInteractionResponse {
  return {
    type: InteractionResponseType.ChannelMessageWithSource,
    data: {
      ...data,
      ...(data.content !== undefined ? { content: clip(data.content, CONTENT_MAX) } : {}),
      allowed_mentions: NO_MENTIONS,
      flags: MessageFlags.Ephemeral,
    },
  };
}

export const textResponse = (content: string): APIInteractionResponse => ephemeral({ content });

const incidentLine = (i: IncidentSummary, withService: boolean): string =>
  `${severityMark(i.status)} **#${i.id}** ${clip(i.title, 120)}${withService ? ` · ${clip(i.serviceName, 60)}` : ''} · ${time(i.createdAt, TimestampStyles.RelativeTime)}`;

/** The open incidents of the company, newest first. */
function incidentListEmbed(incidents: readonly IncidentSummary[]): APIEmbed {
  return new EmbedBuilder()
    .setTitle('Open incidents')
    .setColor(incidents.length ? Colors.Orange : Colors.Green)
    .setDescription(incidents.length ? joinLines(incidents.map((i) => incidentLine(i, true))) : `${NO_OPEN_INCIDENTS} 🎉`)
    .toJSON();
}

const TIMELINE_SHOWN = 10;

/** One incident with its timeline, the latest update last. */
function incidentTimelineEmbed(incident: Incident): APIEmbed {
  const embed = incidentEmbed(viewOfIncident(incident)).setTimestamp(incident.updatedAt);
  const affected = componentsLine(incident.components);
  if (affected) embed.setFooter({ text: clip(affected, 2048) });
  // An embed holds 25 fields and 6,000 characters in all.
  const shown = incident.updates.slice(-TIMELINE_SHOWN);
  const skipped = incident.updates.length - shown.length;
  for (const [n, u] of shown.entries()) {
    const earlier = n === 0 && skipped > 0 ? `(${skipped} earlier) ` : '';
    embed.addFields({
      name: `${earlier}${STAGE_LABEL[u.stage]} · ${time(u.createdAt, TimestampStyles.ShortDateTime)}`,
      value: clip(u.description.trim() || '—', 300),
    });
  }
  return embed.toJSON();
}

/** A service's status; `open` is null when the plan does not show its incidents. */
function serviceStatusEmbed(service: ServiceDetail, open: readonly IncidentSummary[] | null): APIEmbed {
  const shown = shownStatus(service.status, service.knowledge);
  const lines = open === null ? [PLAN_HIDES_INCIDENTS] : open.length === 0 ? [NO_OPEN_INCIDENTS] : open.map((i) => incidentLine(i, false));
  if (service.statusPageUrl) lines.unshift(`Status page: ${service.statusPageUrl}`);
  const reason = reasonText(shown);
  if (reason) lines.unshift(`No data: ${reason}`);
  return new EmbedBuilder()
    .setTitle(clip(`${service.name}: ${STATUS_LABEL[shown.status]}`, LIMIT.title))
    .setURL(service.trackerUrl)
    .setColor(STATUS_COLOR[shown.status])
    .setDescription(joinLines(lines))
    .toJSON();
}

/** Whoever may read a service's incidents may report a problem with it. */
function reportButton(service: ServiceWithStatus, open: readonly IncidentSummary[] | null): APIActionRowComponent<APIComponentInMessageActionRow>[] {
  const customId = customIds.reportProblem(service.urlname);
  // The longest urlnames do not fit in a custom id; `/statusbot report` still takes them.
  if (open === null || customId.length > CUSTOM_ID_MAX) return [];
  return [
    new ActionRowBuilder<ButtonBuilder>()
      .addComponents(new ButtonBuilder().setCustomId(customId).setLabel(REPORT_BUTTON).setStyle(ButtonStyle.Secondary))
      .toJSON(),
  ];
}

/** A file for the channel, as a message with one attachment: `attachments[0]` names `files[0]` of the multipart body. */
export function fileMessage(reply: Extract<ChatReply, { kind: 'file' }>): { message: RESTPostAPIChannelMessageJSONBody; files: RawFile[] } {
  const { file } = reply;
  return {
    message: { content: reply.comment, attachments: [{ id: 0, filename: file.filename, title: file.title }], allowed_mentions: NO_MENTIONS },
    files: [{ name: file.filename, data: Buffer.from(file.content, 'utf8'), contentType: `${file.type}; charset=utf-8` }],
  };
}

/**
 * A verb's answer as an interaction response: a form opens as a modal, a
 * file is posted in the channel by a follow-up (the response only defers:
 * shown to all, as the file will be), anything else is ephemeral.
 */
export function replyResponse(reply: ChatReply): APIInteractionResponse {
  switch (reply.kind) {
    case 'text':
    case 'error':
      return textResponse(reply.text);
    case 'incidents':
      return ephemeral({ embeds: [incidentListEmbed(reply.incidents)] });
    case 'incident':
      return ephemeral({
        embeds: [incidentTimelineEmbed(reply.incident)],
        components: reply.actions ? [incidentButtons(reply.incident.id, reply.incident.resolved)] : [],
      });
    case 'service':
      return ephemeral({ embeds: [serviceStatusEmbed(reply.service, reply.open)], components: reportButton(reply.service, reply.open) });
    case 'form':
      return formModal(reply.form);
    case 'file':
      return { type: InteractionResponseType.DeferredChannelMessageWithSource };
  }
}
