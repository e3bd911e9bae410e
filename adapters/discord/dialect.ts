import type { ChatDialect } from '../chat/dialect.js';

/** How statusbot speaks on Discord: its markdown, and the commands with their options. */
export const DISCORD_DIALECT: ChatDialect = {
  platform: 'discord',
  markup: {
    bold: (t) => `**${t}**`,
    italic: (t) => `_${t}_`,
    code: (t) => `\`${t}\``,
    link: (url, label) => `[${label}](${url})`,
    // Embeds and replies go out with no mentions allowed, so user text cannot ping anyone.
    text: (t) => t,
  },
  workspace: 'server',
  syntax: {
    incident_new: '/incident new service:<service>',
    incident_update: '/incident update id:<id>',
    incident_resolve: '/incident resolve id:<id> [message:<text>]',
    incident_list: '/incident list',
    incident_show: '/incident show id:<id>',
    incident_lead: '/incident lead lead:<@person> [id:<id>]',
    incident_room: '/incident room [id:<id>]',
    incident_note: '/incident note text:<text>',
    incident_postmortem: '/incident postmortem [id:<id>]',
    incident: '/incident new | update | resolve | list | show | lead | room | note | postmortem',
    status: '/status service:<service>',
    report: '/statusbot report service:<service>',
    subscribe_incidents: '/statusbot subscribe incidents',
    subscribe_service: '/statusbot subscribe service service:<service>',
    subscribe_monitor: '/statusbot subscribe monitor monitor:<id-or-name>',
    subscribe_board: '/statusbot subscribe board board:<urlname-or-id> [schedule:] [timezone:] [only_on_change:] [edit_in_place:]',
    unsubscribe: '/statusbot unsubscribe incidents | service | monitor | board',
    subscriptions: '/statusbot subscriptions',
    maintenance: '/statusbot maintenance',
    link: '/statusbot link key:<api-key>',
    help: '/statusbot help',
  },
  holders: {
    link_workspace: 'members with the Manage Server permission',
    manage_channel: 'members with the Manage Channels permission',
  },
  // Invited with View Channels and Send Messages, the bot posts wherever a channel lets it.
  subscribeHint: '',
};
