import type { ChatDialect } from '../chat/dialect.js';
import { writeMarkdown } from '../../src/delivery/update-markdown.js';
import type { MarkupWriter } from '../../src/delivery/update-markdown.js';

/** User text inside mrkdwn: Slack reads &, < and > as markup. */
export const esc = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Markdown as Slack's mrkdwn writes it: `*bold*`, `_italics_`, `<url|text>`; a list item's `-` a bullet. */
const MRKDWN: MarkupWriter = {
  text: esc,
  code: (t) => `\`${esc(t)}\``,
  bold: (inner) => `*${inner}*`,
  italic: (inner) => `_${inner}_`,
  // A link's text shows without markup: Slack formats none inside `<url|…>`, and `|` would end the address.
  link: (url, _inner, plain) => `<${url.replace(/\|/g, '%7C')}|${esc(plain)}>`,
  pre: (t) => `\`\`\`\n${esc(t)}\n\`\`\``,
  item: (marker, inner) => `${marker} ${inner}`,
};

/** Update text written in Markdown (bold, italics, code, links, lists), in mrkdwn with everything else escaped. */
export const mrkdwn = (markdown: string): string => writeMarkdown(markdown, MRKDWN);

/** How statusbot speaks on Slack: mrkdwn, and the commands as typed. */
export const SLACK_DIALECT: ChatDialect = {
  platform: 'slack',
  markup: {
    bold: (t) => `*${t}*`,
    italic: (t) => `_${t}_`,
    code: (t) => `\`${t}\``,
    link: (url, label) => `<${url}|${esc(label)}>`,
    text: esc,
  },
  workspace: 'Slack workspace',
  syntax: {
    incident_new: '/incident new [service]',
    incident_update: '/incident update <id>',
    incident_resolve: '/incident resolve <id> [message]',
    incident_list: '/incident list',
    incident_show: '/incident show <id>',
    incident_lead: '/incident lead [id] @person',
    incident_room: '/incident room [id]',
    incident_note: '/incident note <text>',
    incident_postmortem: '/incident postmortem [id]',
    incident: '/incident new | update <id> | resolve <id> [message] | list | show <id> | lead [id] @person | room [id] | note <text> | postmortem [id]',
    status: '/service <service>',
    report: '/statusbot report <service>',
    subscribe_incidents: '/statusbot subscribe incidents',
    subscribe_service: '/statusbot subscribe service <urlname>',
    subscribe_monitor: '/statusbot subscribe monitor <id-or-name>',
    subscribe_board: '/statusbot subscribe board <urlname-or-id> [schedule="0 9 * * 1-5"] [timezone=Europe/Berlin] [only-on-change] [edit-in-place]',
    unsubscribe: '/statusbot unsubscribe incidents | service <urlname> | monitor <id-or-name> | board <urlname-or-id>',
    subscriptions: '/statusbot subscriptions',
    maintenance: '/statusbot maintenance',
    link: '/statusbot link <api-key>',
    help: '/statusbot help',
  },
  holders: {
    link_workspace: 'workspace admins and owners (or users listed in `slack.admins` of the config)',
    manage_channel: 'workspace admins and owners (or users listed in `slack.admins` of the config)',
  },
  subscribeHint: 'In a private channel, invite the app first (`/invite @statusbot`).',
};
