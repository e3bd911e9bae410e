import { Colors, EmbedBuilder, InteractionResponseType, MessageFlags, TimestampStyles, time } from 'discord.js';
import type { APIActionRowComponent, APIComponentInMessageActionRow, APIEmbed, APIInteractionResponse } from 'discord.js';
import type { ChannelSubscription } from '../../src/domain/chat/chat.js';
import type { Incident, IncidentSummary } from '../../src/domain/incidents/incident.js';
import type { ServiceWithStatus } from '../../src/domain/services/service.js';
import { STAGE_LABEL } from '../labels.js';
import {
  LIMIT,
  NO_MENTIONS,
  STATUS_COLOR,
  STATUS_LABEL,
  clip,
  incidentEmbed,
  joinLines,
  severityMark,
  viewOfIncident,
} from './embeds.js';

const CONTENT_MAX = 2000;

/** A reply to an interaction; ephemeral ones only the invoking user sees. */
export function reply(
  data: { content?: string; embeds?: APIEmbed[]; components?: APIActionRowComponent<APIComponentInMessageActionRow>[] },
  options: { ephemeral?: boolean } = {},
): APIInteractionResponse {
  return {
    type: InteractionResponseType.ChannelMessageWithSource,
    data: {
      ...data,
      ...(data.content !== undefined ? { content: clip(data.content, CONTENT_MAX) } : {}),
      allowed_mentions: NO_MENTIONS,
      ...(options.ephemeral ? { flags: MessageFlags.Ephemeral } : {}),
    },
  };
}

export const ephemeral = (content: string): APIInteractionResponse => reply({ content }, { ephemeral: true });

const incidentLine = (i: IncidentSummary, withService: boolean): string =>
  `${severityMark(i.status)} **#${i.id}** ${clip(i.title, 120)}${withService ? ` · ${clip(i.serviceName, 60)}` : ''} · ${time(i.createdAt, TimestampStyles.RelativeTime)}`;

/** The open incidents of the company, newest first. */
export function incidentListEmbed(incidents: readonly IncidentSummary[]): APIEmbed {
  return new EmbedBuilder()
    .setTitle('Open incidents')
    .setColor(incidents.length ? Colors.Orange : Colors.Green)
    .setDescription(incidents.length ? joinLines(incidents.map((i) => incidentLine(i, true))) : 'No open incidents. 🎉')
    .toJSON();
}

const TIMELINE_SHOWN = 10;

/** One incident with its timeline, the latest update last. */
export function incidentTimelineEmbed(incident: Incident): APIEmbed {
  const embed = incidentEmbed(viewOfIncident(incident)).setTimestamp(incident.updatedAt);
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
export function serviceStatusEmbed(service: ServiceWithStatus, open: readonly IncidentSummary[] | null): APIEmbed {
  const lines =
    open === null
      ? ['Your plan shows the incidents of monitored services only.']
      : open.length === 0
        ? ['No open incidents.']
        : open.map((i) => incidentLine(i, false));
  if (service.statusPageUrl) lines.unshift(`Status page: ${service.statusPageUrl}`);
  return new EmbedBuilder()
    .setTitle(clip(`${service.name}: ${STATUS_LABEL[service.status]}`, LIMIT.title))
    .setURL(service.trackerUrl)
    .setColor(STATUS_COLOR[service.status])
    .setDescription(joinLines(lines))
    .toJSON();
}

export function describeSubscription(s: ChannelSubscription): string {
  if (s.service) return `the status of ${s.service.name} (\`${s.service.urlname}\`)`;
  if (s.monitor) return `the monitor ${s.monitor.name} (#${s.monitor.id})`;
  if (s.board && s.digest) {
    const d = s.digest;
    const flags = [d.onlyOnChange ? 'only on change' : null, d.editInPlace ? 'edited in place' : null].filter(Boolean).join(', ');
    return `the digest of board ${s.board.name} (\`${s.board.urlname}\`) at \`${d.schedule}\` ${d.timezone}${flags ? `, ${flags}` : ''}`;
  }
  return "the company's incidents";
}

export function subscriptionsText(subscriptions: readonly ChannelSubscription[]): string {
  if (subscriptions.length === 0) return 'This channel follows nothing yet. Try `/statusbot subscribe incidents`.';
  return ['This channel follows:', ...subscriptions.map((s) => `• ${describeSubscription(s)}`)].join('\n');
}

export const HELP_TEXT = [
  '**statusbot**: incidents and status from Discord',
  '`/incident new service:` opens an incident on one of your services',
  '`/incident update id:` and `/incident resolve id: [message:]` change or close one',
  '`/incident list` and `/incident show id:` show the open incidents, or one timeline',
  "`/status service:` shows a service's status and open incidents",
  '`/statusbot subscribe incidents|service|monitor|board`, `/statusbot unsubscribe …`, `/statusbot subscriptions`: what this channel follows',
  '`/statusbot link key:` makes this server act for your company (the API key proves it)',
].join('\n');

export const NOT_LINKED_TEXT =
  'This server is not linked to a statusbot company yet: someone with Manage Server runs `/statusbot link key:<API key>`.';
