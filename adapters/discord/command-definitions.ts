import { InteractionContextType, Routes, SlashCommandBuilder } from 'discord.js';
import type { RESTPostAPIChatInputApplicationCommandsJSONBody, SlashCommandSubcommandBuilder } from 'discord.js';
import type { ChatEnv } from '../../src/config/env.js';
import { closeDiscordRest, createDiscordRest, describeDiscordFailure } from './client.js';

const serviceOption = (description: string) => (s: SlashCommandSubcommandBuilder) =>
  s.addStringOption((o) => o.setName('service').setDescription(description).setRequired(true).setAutocomplete(true).setMaxLength(200));

const incidentId = (s: SlashCommandSubcommandBuilder) =>
  s.addIntegerOption((o) => o.setName('id').setDescription('The incident').setRequired(true).setMinValue(1).setAutocomplete(true));

const leadOption = (s: SlashCommandSubcommandBuilder) => s.addUserOption((o) => o.setName('lead').setDescription('Who leads it'));

/** In an incident's room, the incident goes without saying. */
const optionalIncidentId = (s: SlashCommandSubcommandBuilder) =>
  s.addIntegerOption((o) => o.setName('id').setDescription('The incident (in its room: that one)').setMinValue(1).setAutocomplete(true));

const monitorOption = (s: SlashCommandSubcommandBuilder) =>
  s.addStringOption((o) => o.setName('monitor').setDescription("The monitor's name or id").setRequired(true).setAutocomplete(true).setMaxLength(200));

const boardOption = (s: SlashCommandSubcommandBuilder) =>
  s.addStringOption((o) => o.setName('board').setDescription("The board's urlname or id").setRequired(true).setMaxLength(200));

const incident = new SlashCommandBuilder()
  .setName('incident')
  .setDescription('Open, update, resolve and read incidents')
  .setContexts(InteractionContextType.Guild)
  .addSubcommand((s) => leadOption(serviceOption('One of your services')(s.setName('new').setDescription('Open an incident (a form opens)'))))
  .addSubcommand((s) => leadOption(incidentId(s.setName('update').setDescription('Change an incident or post an update (a form opens)'))))
  .addSubcommand((s) =>
    incidentId(s.setName('resolve').setDescription('Resolve an incident')).addStringOption((o) =>
      o.setName('message').setDescription('The closing update').setMaxLength(4000),
    ),
  )
  .addSubcommand((s) => s.setName('list').setDescription('The open incidents'))
  .addSubcommand((s) => incidentId(s.setName('show').setDescription('An incident and its timeline')))
  .addSubcommand((s) =>
    optionalIncidentId(
      s
        .setName('lead')
        .setDescription('Name who leads an incident')
        .addUserOption((o) => o.setName('lead').setDescription('Who leads it').setRequired(true)),
    ),
  )
  .addSubcommand((s) => optionalIncidentId(s.setName('room').setDescription('Open a channel for an incident')))
  .addSubcommand((s) =>
    s
      .setName('note')
      .setDescription("Add a note to the timeline of this room's incident")
      .addStringOption((o) => o.setName('text').setDescription('The note').setRequired(true).setMaxLength(4000)),
  )
  .addSubcommand((s) => optionalIncidentId(s.setName('postmortem').setDescription("Post an incident's postmortem here as a Markdown file")));

const status = new SlashCommandBuilder()
  .setName('status')
  .setDescription("A service's status and open incidents")
  .setContexts(InteractionContextType.Guild)
  .addStringOption((o) => o.setName('service').setDescription('The service').setRequired(true).setAutocomplete(true).setMaxLength(200));

const statusbot = new SlashCommandBuilder()
  .setName('statusbot')
  .setDescription('Link this server, and choose what channels follow')
  .setContexts(InteractionContextType.Guild)
  .addSubcommand((s) => s.setName('help').setDescription('What statusbot can do'))
  .addSubcommand((s) => serviceOption('The service')(s.setName('status').setDescription("A service's status and open incidents")))
  .addSubcommand((s) => serviceOption('The service')(s.setName('report').setDescription('Report a problem with a service')))
  .addSubcommand((s) =>
    s
      .setName('link')
      .setDescription('Make this server act for your company (needs Manage Server)')
      .addStringOption((o) => o.setName('key').setDescription("Your company's API key").setRequired(true).setMaxLength(512)),
  )
  .addSubcommandGroup((g) =>
    g
      .setName('subscribe')
      .setDescription('Make this channel follow something (needs Manage Channels)')
      .addSubcommand((s) => s.setName('incidents').setDescription("Your company's incidents, one message each, kept up to date"))
      .addSubcommand((s) => serviceOption('The service')(s.setName('service').setDescription("A service's status changes")))
      .addSubcommand((s) => monitorOption(s.setName('monitor').setDescription('A custom monitor going down and recovering')))
      .addSubcommand((s) =>
        boardOption(s.setName('board').setDescription("A board's digest"))
          .addStringOption((o) => o.setName('schedule').setDescription('Cron expression, default "0 9 * * 1-5"').setMaxLength(100))
          .addStringOption((o) => o.setName('timezone').setDescription('IANA time zone, default UTC').setMaxLength(100))
          .addBooleanOption((o) => o.setName('only_on_change').setDescription('Post only when something changed'))
          .addBooleanOption((o) => o.setName('edit_in_place').setDescription('Edit the last digest instead of posting')),
      ),
  )
  .addSubcommandGroup((g) =>
    g
      .setName('unsubscribe')
      .setDescription('Stop this channel following something (needs Manage Channels)')
      .addSubcommand((s) => s.setName('incidents').setDescription("Your company's incidents"))
      .addSubcommand((s) => serviceOption('The service')(s.setName('service').setDescription("A service's status changes")))
      .addSubcommand((s) => monitorOption(s.setName('monitor').setDescription('A custom monitor')))
      .addSubcommand((s) => boardOption(s.setName('board').setDescription("A board's digest"))),
  )
  .addSubcommand((s) => s.setName('subscriptions').setDescription('What this channel follows'))
  .addSubcommand((s) => s.setName('maintenance').setDescription('Upcoming and current maintenance of your services'));

/** The slash commands as Discord's API takes them. */
export const commandDefinitions = (): RESTPostAPIChatInputApplicationCommandsJSONBody[] => [incident.toJSON(), status.toJSON(), statusbot.toJSON()];

/** Registers the slash commands globally, or in one guild (instant, for development). */
export async function registerDiscordCommands(options: {
  env: NonNullable<ChatEnv['discord']>;
  guildId: string | null;
}): Promise<{ count: number; scope: string }> {
  const { env, guildId } = options;
  const rest = createDiscordRest(env, { rejectOnRateLimit: false });
  try {
    const route = guildId ? Routes.applicationGuildCommands(env.applicationId, guildId) : Routes.applicationCommands(env.applicationId);
    const body = commandDefinitions();
    // PUT replaces the whole set: commands removed here disappear from Discord too.
    const registered = await rest.put(route, { body }).catch((error: unknown) => {
      const problem = describeDiscordFailure(error, env);
      throw problem ? new DiscordUnavailableError(problem) : error;
    });
    return { count: Array.isArray(registered) ? registered.length : body.length, scope: guildId ? `in guild ${guildId}` : 'globally' };
  } finally {
    closeDiscordRest(rest);
  }
}

/** Discord could not be reached, or refused: the message says why and what to check. */
export class DiscordUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiscordUnavailableError';
  }
}
