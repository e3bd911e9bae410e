import { ApplicationCommandOptionType, InteractionResponseType, PermissionFlagsBits } from 'discord.js';
import type {
  APIApplicationCommandAutocompleteResponse,
  APIApplicationCommandOptionChoice,
  APIAutocompleteApplicationCommandInteractionData,
  APIChatInputApplicationCommandInteractionData,
  APIInteractionResponse,
} from 'discord.js';
import type { ChannelRef } from '../../src/domain/chat/chat.js';
import { linkWorkspace } from '../../src/domain/chat/chat-links.js';
import { listChannelSubscriptions, subscribeChannel, unsubscribeChannel } from '../../src/domain/chat/subscriptions.js';
import type { Company } from '../../src/domain/companies/company.js';
import type { DomainContext } from '../../src/domain/context.js';
import { DomainError, invalidInput } from '../../src/domain/errors.js';
import {
  getIncident,
  listOpenIncidents,
  listServiceIncidents,
  resolveIncident,
} from '../../src/domain/incidents/incident-service.js';
import { listMonitors } from '../../src/domain/monitors/monitor-service.js';
import { getServiceStatus, listCustomServices, searchServices } from '../../src/domain/services/service-queries.js';
import { clip, incidentButtons } from './embeds.js';
import {
  HELP_TEXT,
  NOT_LINKED_TEXT,
  describeSubscription,
  ephemeral,
  incidentListEmbed,
  incidentTimelineEmbed,
  reply,
  serviceStatusEmbed,
  subscriptionsText,
} from './replies.js';
import { newIncidentModal, updateIncidentModal } from './modals.js';

/** Where an interaction happened and who asks: a guild channel, the company the guild acts for. */
export interface GuildScope {
  ctx: DomainContext;
  guildId: string;
  channel: ChannelRef;
  company: Company | null;
  /** The invoking member's permissions in the channel. */
  permissions: bigint;
}

const AUTOCOMPLETE_MAX = 25;
const CHOICE_NAME_MAX = 100;

type OptionValue = string | number | boolean;
type RawOption = { name: string; type: number; value?: OptionValue; options?: RawOption[]; focused?: boolean };

/** A command as one path ("statusbot subscribe board") and its options by name. */
interface Invocation {
  path: string;
  options: Map<string, OptionValue>;
  focused: { name: string; text: string } | null;
}

function invocationOf(data: APIChatInputApplicationCommandInteractionData | APIAutocompleteApplicationCommandInteractionData): Invocation {
  const path = [data.name];
  let options = (data.options ?? []) as RawOption[];
  for (;;) {
    const first = options[0];
    if (!first || (first.type !== ApplicationCommandOptionType.Subcommand && first.type !== ApplicationCommandOptionType.SubcommandGroup)) break;
    path.push(first.name);
    options = first.options ?? [];
  }
  const values = new Map<string, OptionValue>();
  let focused: Invocation['focused'] = null;
  for (const o of options) {
    if (o.value === undefined) continue;
    values.set(o.name, o.value);
    if (o.focused) focused = { name: o.name, text: String(o.value) };
  }
  return { path: path.join(' '), options: values, focused };
}

const str = (i: Invocation, name: string): string | undefined => {
  const v = i.options.get(name);
  return v === undefined ? undefined : String(v);
};
function int(i: Invocation, name: string): number {
  const n = Number(i.options.get(name));
  if (!Number.isSafeInteger(n) || n < 1) throw invalidInput([name], `${name} must be an incident number`);
  return n;
}

function requirePermission(scope: GuildScope, flag: bigint, name: string): void {
  const admin = PermissionFlagsBits.Administrator;
  if ((scope.permissions & admin) === admin || (scope.permissions & flag) === flag) return;
  throw new DomainError('forbidden', `this needs the ${name} permission`);
}

/** A custom service of the company by urlname or name; creating incidents takes nothing else. */
async function customService(ctx: DomainContext, company: Company, ref: string) {
  const services = await listCustomServices(ctx, company);
  const wanted = ref.trim().toLowerCase();
  const found = services.find((s) => s.urlname === wanted || s.name.toLowerCase() === wanted);
  if (found) return found;
  const known = services.map((s) => s.urlname).join(', ') || 'none are configured';
  throw invalidInput(['service'], `service must be one of your company's services (${known})`);
}

/** A service typed by name rather than picked from the suggestions still finds its urlname. */
async function serviceUrlname(ctx: DomainContext, company: Company, ref: string): Promise<string> {
  const wanted = ref.trim();
  const found = (await searchServices(ctx, company, wanted, AUTOCOMPLETE_MAX)).find(
    (s) => s.urlname === wanted || s.name.toLowerCase() === wanted.toLowerCase(),
  );
  return found?.urlname ?? wanted;
}

/** Subscription targets as the domain's subscription input takes them; absent options stay absent. */
async function subscriptionInput(scope: GuildScope, company: Company, i: Invocation, target: string): Promise<Record<string, unknown>> {
  const raw: Record<string, unknown> = { target };
  for (const name of ['service', 'monitor', 'board', 'schedule', 'timezone', 'only_on_change', 'edit_in_place']) {
    const v = i.options.get(name);
    if (v !== undefined) raw[name] = v;
  }
  if (typeof raw.service === 'string') raw.service = await serviceUrlname(scope.ctx, company, raw.service);
  return raw;
}

/** Runs a slash command; everything except help and link needs a linked guild. */
export async function runCommand(scope: GuildScope, data: APIChatInputApplicationCommandInteractionData): Promise<APIInteractionResponse> {
  const i = invocationOf(data);
  const { ctx } = scope;
  if (i.path === 'statusbot help') return ephemeral(HELP_TEXT);
  if (i.path === 'statusbot link') {
    requirePermission(scope, PermissionFlagsBits.ManageGuild, 'Manage Server');
    const company = await linkWorkspace(ctx, 'discord', scope.guildId, str(i, 'key') ?? '');
    return ephemeral(`This server now acts for **${company.name}**. Try \`/statusbot subscribe incidents\` in a channel.`);
  }
  const company = scope.company;
  if (!company) return ephemeral(NOT_LINKED_TEXT);

  const [group, target] = i.path.split(' ').slice(1);
  if (group === 'subscribe' && target) {
    requirePermission(scope, PermissionFlagsBits.ManageChannels, 'Manage Channels');
    const subscription = await subscribeChannel(ctx, company, scope.channel, await subscriptionInput(scope, company, i, target));
    return ephemeral(`This channel now follows ${describeSubscription(subscription)}.`);
  }
  if (group === 'unsubscribe' && target) {
    requirePermission(scope, PermissionFlagsBits.ManageChannels, 'Manage Channels');
    await unsubscribeChannel(ctx, company, scope.channel, await subscriptionInput(scope, company, i, target));
    return ephemeral('This channel no longer follows that.');
  }

  switch (i.path) {
    case 'statusbot subscriptions':
      return ephemeral(subscriptionsText(await listChannelSubscriptions(ctx, company, scope.channel)));
    case 'incident new':
      return newIncidentModal(await customService(ctx, company, str(i, 'service') ?? ''));
    case 'incident update':
      return updateIncidentModal(await getIncident(ctx, company, int(i, 'id')));
    case 'incident resolve': {
      const incident = await resolveIncident(ctx, company, int(i, 'id'), str(i, 'message'));
      return ephemeral(`Resolved incident #${incident.id}: ${clip(incident.title, 200)}`);
    }
    case 'incident list':
      // Answers to a command are for whoever asked, as on Slack; channels hear of incidents through announcements.
      return reply({ embeds: [incidentListEmbed(await listOpenIncidents(ctx, company))] }, { ephemeral: true });
    case 'incident show': {
      const incident = await getIncident(ctx, company, int(i, 'id'));
      const own = (await listCustomServices(ctx, company)).some((s) => s.id === incident.serviceId);
      return reply(
        { embeds: [incidentTimelineEmbed(incident)], components: own ? [incidentButtons(incident.id, incident.resolved)] : [] },
        { ephemeral: true },
      );
    }
    case 'status': {
      const service = await getServiceStatus(ctx, company, await serviceUrlname(ctx, company, str(i, 'service') ?? ''));
      let open = null;
      try {
        const incidents = await listServiceIncidents(ctx, company, service.urlname, { includeUserReports: false });
        open = incidents.filter((x) => !x.resolved);
      } catch (error) {
        // The free plan sees a catalog service's status, not necessarily its incidents.
        if (!(error instanceof DomainError && error.code === 'forbidden')) throw error;
      }
      return reply({ embeds: [serviceStatusEmbed(service, open)] }, { ephemeral: true });
    }
    default:
      return ephemeral('statusbot does not know that command; try `/statusbot help`.');
  }
}

// Discord refuses the whole answer when one choice's value is over 100 characters.
const choices = (list: APIApplicationCommandOptionChoice[]): APIApplicationCommandAutocompleteResponse => ({
  type: InteractionResponseType.ApplicationCommandAutocompleteResult,
  data: { choices: list.filter((c) => String(c.value).length <= CHOICE_NAME_MAX).slice(0, AUTOCOMPLETE_MAX) },
});

/** Suggestions for the focused option; none in an unlinked guild. */
export async function autocomplete(
  scope: GuildScope,
  data: APIAutocompleteApplicationCommandInteractionData,
): Promise<APIApplicationCommandAutocompleteResponse> {
  const i = invocationOf(data);
  const { ctx, company } = scope;
  if (!company || !i.focused) return choices([]);
  const text = i.focused.text.trim().toLowerCase();
  if (i.focused.name === 'id') {
    const open = await listOpenIncidents(ctx, company);
    return choices(
      open
        .filter((x) => String(x.id).startsWith(text) || x.title.toLowerCase().includes(text))
        .map((x) => ({ name: clip(`#${x.id} ${x.title} (${x.serviceName})`, CHOICE_NAME_MAX), value: x.id })),
    );
  }
  if (i.focused.name === 'service') {
    const services =
      i.path === 'incident new'
        ? (await listCustomServices(ctx, company)).filter((s) => s.name.toLowerCase().includes(text) || s.urlname.includes(text))
        : await searchServices(ctx, company, text, AUTOCOMPLETE_MAX);
    return choices(services.map((s) => ({ name: clip(`${s.name} (${s.urlname})`, CHOICE_NAME_MAX), value: s.urlname })));
  }
  if (i.focused.name === 'monitor') {
    const monitors = (await listMonitors(ctx, company)).filter((m) => String(m.id) === text || m.name.toLowerCase().includes(text));
    return choices(monitors.map((m) => ({ name: clip(`${m.name} (${m.url})`, CHOICE_NAME_MAX), value: String(m.id) })));
  }
  return choices([]);
}
