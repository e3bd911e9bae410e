import type { App, SlackCommandMiddlewareArgs, SlashCommand, webApi } from '@slack/bolt';
import { companyForWorkspace, linkWorkspace } from '../../src/domain/chat/chat-links.js';
import type { ChannelRef } from '../../src/domain/chat/chat.js';
import { listChannelSubscriptions, subscribeChannel, unsubscribeChannel } from '../../src/domain/chat/subscriptions.js';
import type { Company } from '../../src/domain/companies/company.js';
import { DomainError } from '../../src/domain/errors.js';
import {
  getIncident,
  listOpenIncidents,
  listServiceIncidents,
  resolveIncident,
} from '../../src/domain/incidents/incident-service.js';
import { getServiceStatus, searchServices } from '../../src/domain/services/service-queries.js';
import {
  HELP,
  NOT_LINKED,
  describeSubscription,
  esc,
  incidentList,
  incidentTimeline,
  serviceStatus,
  subscriptionList,
} from './blocks.js';
import type { SlackMessage } from './blocks.js';
import { slackErrorText } from './errors.js';
import { openNewIncidentModal, openUpdateIncidentModal } from './modals.js';
import type { ModalDeps } from './modals.js';

export type CommandDeps = ModalDeps;

const INCIDENT_USAGE = 'Usage: `/incident new | update <id> | resolve <id> [message] | list | show <id>`';
const STATUS_USAGE = 'Usage: `/status <service>`, e.g. `/status acme-api`';
const LINK_USAGE = 'Usage: `/statusbot link <api-key>`; the key is checked and never shown.';

/** Slack escapes &, < and > in a command's text. */
const unescape = (text: string): string => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The words of a command; "straight" or “curly” quotes keep spaces, as in schedule="0 9 * * 1-5". */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of unescape(text).matchAll(/([^\s"“”]*)["“”]([^"“”]*)["“”]|(\S+)/g)) {
    out.push(m[3] ?? `${m[1]}${m[2]}`);
  }
  return out;
}

const BOOLEAN_SETTINGS = new Set(['only_on_change', 'edit_in_place']);

/**
 * `incidents`, `service <urlname>` or `board <ref> [key=value] [flag]` as the
 * domain's subscription input; the domain validates it (unknown keys included).
 */
export function subscriptionOf(args: readonly string[]): Record<string, unknown> {
  const [target, name, ...rest] = args;
  const input: Record<string, unknown> = { target: target?.toLowerCase() };
  // A monitor's name may have spaces, and a monitor has no settings.
  if (target === 'monitor') {
    if (args.length > 1) input.monitor = args.slice(1).join(' ');
    return input;
  }
  const settings = target === 'incidents' ? args.slice(1) : rest;
  if (target === 'service' && name !== undefined) input.service = name;
  if (target === 'board' && name !== undefined) input.board = name;
  for (const setting of settings) {
    const eq = setting.indexOf('=');
    const key = (eq === -1 ? setting : setting.slice(0, eq)).toLowerCase().replace(/-/g, '_');
    const raw = eq === -1 ? null : setting.slice(eq + 1);
    if (BOOLEAN_SETTINGS.has(key)) input[key] = raw === null || /^(true|yes|on)$/i.test(raw) ? true : /^(false|no|off)$/i.test(raw) ? false : raw;
    else input[key] = raw ?? true;
  }
  return input;
}

const incidentIdOf = (word: string | undefined): number | null => {
  const m = word ? /^#?(\d{1,12})$/.exec(word) : null;
  return m ? Number(m[1]) : null;
};

const channelOf = (c: SlashCommand): ChannelRef => ({ platform: 'slack', workspaceId: c.team_id, channelId: c.channel_id });

async function statusbot(deps: CommandDeps, command: SlashCommand): Promise<SlackMessage> {
  const { ctx } = deps;
  const [verb = 'help', ...rest] = words(command.text);
  switch (verb.toLowerCase()) {
    case 'help':
      return { text: HELP };
    case 'link': {
      if (rest.length !== 1) return { text: LINK_USAGE };
      const company = await linkWorkspace(ctx, 'slack', command.team_id, rest[0]!);
      return { text: `This workspace now acts for *${esc(company.name)}*.` };
    }
  }
  const company = await companyForWorkspace(ctx, 'slack', command.team_id);
  if (!company) return { text: NOT_LINKED };
  switch (verb.toLowerCase()) {
    case 'subscribe': {
      const subscription = await subscribeChannel(ctx, company, channelOf(command), subscriptionOf(rest));
      return {
        text: `This channel now follows ${describeSubscription(subscription)}. In a private channel, invite the app first (\`/invite @statusbot\`).`,
      };
    }
    case 'unsubscribe': {
      const target = subscriptionOf(rest);
      await unsubscribeChannel(ctx, company, channelOf(command), target);
      return { text: `This channel no longer follows ${esc(rest.join(' '))}.` };
    }
    case 'subscriptions':
      return subscriptionList(await listChannelSubscriptions(ctx, company, channelOf(command)));
    default:
      return { text: `There is no \`/statusbot ${esc(verb)}\`.\n\n${HELP}` };
  }
}

async function incident(deps: CommandDeps, command: SlashCommand, client: webApi.WebClient): Promise<SlackMessage | null> {
  const { ctx } = deps;
  const [verb = 'help', ...rest] = words(command.text);
  if (verb === 'help') return { text: INCIDENT_USAGE };
  const company = await companyForWorkspace(ctx, 'slack', command.team_id);
  if (!company) return { text: NOT_LINKED };
  const opener = { triggerId: command.trigger_id, responseUrl: command.response_url };
  const id = incidentIdOf(rest[0]);
  switch (verb.toLowerCase()) {
    case 'new':
      return openNewIncidentModal(deps, client, company, opener);
    case 'list':
      return incidentList(await listOpenIncidents(ctx, company));
    case 'update':
      return id === null ? { text: INCIDENT_USAGE } : openUpdateIncidentModal(deps, client, company, id, opener);
    case 'show':
      return id === null ? { text: INCIDENT_USAGE } : incidentTimeline(await getIncident(ctx, company, id));
    case 'resolve': {
      if (id === null) return { text: INCIDENT_USAGE };
      // The message as typed, spacing and all: everything after the id.
      const message = unescape(command.text).replace(/^\s*\S+\s+\S+\s*/, '');
      const resolved = await resolveIncident(ctx, company, id, message || undefined);
      return { text: `Resolved incident *#${resolved.id}*: ${esc(resolved.title)}` };
    }
    default:
      return { text: INCIDENT_USAGE };
  }
}

async function status(deps: CommandDeps, command: SlashCommand): Promise<SlackMessage> {
  const { ctx } = deps;
  const [name] = words(command.text);
  if (!name) return { text: STATUS_USAGE };
  const company = await companyForWorkspace(ctx, 'slack', command.team_id);
  if (!company) return { text: NOT_LINKED };
  try {
    const service = await getServiceStatus(ctx, company, name);
    return serviceStatus(service, await openIncidentsOf(deps, company, name));
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
    const similar = await searchServices(ctx, company, name, 5);
    if (similar.length === 0) throw error;
    return { text: `There is no service \`${esc(name)}\`. Did you mean ${similar.map((s) => `\`${esc(s.urlname)}\` (${esc(s.name)})`).join(', ')}?` };
  }
}

/** Null when the company's plan does not show the service's incidents. */
async function openIncidentsOf(deps: CommandDeps, company: Company, urlname: string) {
  try {
    const incidents = await listServiceIncidents(deps.ctx, company, urlname, { includeUserReports: false });
    return incidents.filter((i) => !i.resolved);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'forbidden') return null;
    throw error;
  }
}

/** Acks at once, then answers through the response_url: the work may take longer than Slack's 3 seconds. */
async function answer(
  deps: CommandDeps,
  args: SlackCommandMiddlewareArgs,
  work: () => Promise<SlackMessage | null>,
): Promise<void> {
  await args.ack();
  let reply: SlackMessage | null;
  try {
    reply = await work();
  } catch (error) {
    reply = { text: slackErrorText(error, deps.logger, `${args.command.command} ${words(args.command.text)[0] ?? ''}`.trim()) };
  }
  if (reply) await args.respond({ response_type: 'ephemeral', ...reply });
}

export function registerCommands(app: App, deps: CommandDeps): void {
  app.command('/statusbot', (args) => answer(deps, args, () => statusbot(deps, args.command)));
  app.command('/incident', (args) => answer(deps, args, () => incident(deps, args.command, args.client)));
  app.command('/status', (args) => answer(deps, args, () => status(deps, args.command)));
}
