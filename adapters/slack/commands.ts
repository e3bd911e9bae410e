import type { App, BlockButtonAction, SlackActionMiddlewareArgs, SlashCommand, webApi } from '@slack/bolt';
import type { ChatReply } from '../chat/reply.js';
import { runVerb } from '../chat/verbs.js';
import { FORM_NOT_OPENED } from '../chat/wording.js';
import type { VerbCall } from '../chat/verbs.js';
import { describeSlackFailure } from './client.js';
import { openModal } from './modals.js';
import { ACTION_POST_UPDATE, ACTION_REPORT, ACTION_RESOLVE, replyMessage } from './render.js';
import { slackRequest } from './request.js';
import type { SlackDeps, SlackOrigin } from './request.js';

/** The slash commands statusbot declares in manifest.yml, and handles here. */
export const SLACK_COMMANDS = ['/incident', '/service', '/statusbot'] as const;
export type SlackCommand = (typeof SLACK_COMMANDS)[number];

/** Slack escapes &, < and > in a command's text. */
const unescapeSlack = (text: string): string => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The words of a command; "straight" or “curly” quotes keep spaces, as in schedule="0 9 * * 1-5". */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of unescapeSlack(text).matchAll(/([^\s"“”]*)["“”]([^"“”]*)["“”]|(\S+)/g)) {
    out.push(m[3] ?? `${m[1]}${m[2]}`);
  }
  return out;
}

const BOOLEAN_SETTINGS = new Set(['only_on_change', 'edit_in_place']);

/**
 * `incidents`, `service <urlname-or-name>`, `monitor <id-or-name>` or `board <ref>
 * [key=value] [flag]` as the domain's subscription input; the domain validates it
 * (unknown keys included).
 */
export function subscriptionOf(args: readonly string[]): Record<string, unknown> {
  const [target, name, ...rest] = args;
  const input: Record<string, unknown> = { target: target?.toLowerCase() };
  // A monitor's or service's name may have spaces, and neither has settings.
  if (target === 'monitor' || target === 'service') {
    if (args.length > 1) input[target] = args.slice(1).join(' ');
    return input;
  }
  const settings = target === 'incidents' ? args.slice(1) : rest;
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

/** A member as Slack writes a mention in a command's text: `<@U123>` or `<@U123|alice>`. */
const memberOf = (word: string): string | null => /^<@([UW][A-Z0-9]+)(?:\|[^>]*)?>$/.exec(word)?.[1] ?? null;

/** The lead named among a command's words, as the form verbs take it. */
const leadOf = (args: readonly string[]): { lead?: string } => {
  const lead = args.map(memberOf).find((m) => m !== null);
  return lead ? { lead } : {};
};

/** Everything after the first `count` words, spacing and all (a message as typed). */
const after = (text: string, count: number): string =>
  unescapeSlack(text)
    .replace(new RegExp(`^\\s*(?:\\S+\\s+){${count}}`), '')
    .trim();

/** A slash command as a verb. */
export function verbOf(command: SlackCommand, text: string): VerbCall {
  const [first = '', ...rest] = words(text);
  const verb = first.toLowerCase();
  if (command === '/service') return first === '' ? { verb: 'usage', syntax: 'status' } : { verb: 'status', service: after(text, 0) };
  if (command === '/incident') {
    const id = incidentIdOf(rest[0]);
    switch (verb) {
      case 'new': {
        const service = rest.filter((w) => memberOf(w) === null);
        return { verb: 'form', form: 'new', target: service.length ? service.join(' ') : null, ...leadOf(rest) };
      }
      case 'list':
        return { verb: 'list' };
      case 'update':
        return id === null ? { verb: 'usage', syntax: 'incident' } : { verb: 'form', form: 'update', target: id, ...leadOf(rest) };
      case 'show':
        return id === null ? { verb: 'usage', syntax: 'incident' } : { verb: 'show', id };
      case 'resolve':
        return id === null ? { verb: 'usage', syntax: 'incident' } : { verb: 'resolve', id, message: after(text, 2) || undefined };
      case 'lead': {
        const mention = rest.map(memberOf).find((m) => m !== null) ?? '';
        return { verb: 'lead', id, member: mention };
      }
      case 'room':
        return { verb: 'room', id };
      case 'note':
        return { verb: 'note', text: after(text, 1) };
      case 'postmortem':
        return id === null && rest.length > 0 ? { verb: 'usage', syntax: 'incident_postmortem' } : { verb: 'postmortem', id };
      default:
        return { verb: 'usage', syntax: 'incident' };
    }
  }
  switch (verb) {
    case '':
    case 'help':
      return { verb: 'help' };
    case 'link':
      return rest.length === 1 ? { verb: 'link', key: rest[0]! } : { verb: 'usage', syntax: 'link' };
    case 'status':
      return rest.length === 0 ? { verb: 'usage', syntax: 'status' } : { verb: 'status', service: after(text, 1) };
    case 'report':
      return rest.length === 0 ? { verb: 'usage', syntax: 'report' } : { verb: 'report', service: after(text, 1) };
    case 'subscribe':
      return { verb: 'subscribe', input: subscriptionOf(rest) };
    case 'unsubscribe':
      return { verb: 'unsubscribe', input: subscriptionOf(rest) };
    case 'subscriptions':
      return { verb: 'subscriptions' };
    case 'maintenance':
    case 'maintenances':
      return { verb: 'maintenance' };
    default:
      return { verb: 'unknown', typed: `/statusbot ${first}` };
  }
}

/**
 * Posts a document as a file in the channel asked from, with files.uploadV2
 * (an upload URL, the bytes sent to it, then the share in the channel);
 * whoever asked hears how it went.
 */
async function postFile(
  deps: SlackDeps,
  client: webApi.WebClient,
  channelId: string,
  reply: Extract<ChatReply, { kind: 'file' }>,
  respond: (message: { text: string }) => Promise<unknown>,
): Promise<void> {
  const { file } = reply;
  try {
    await client.files.uploadV2({ channel_id: channelId, filename: file.filename, title: file.title, content: file.content, initial_comment: reply.comment });
  } catch (error) {
    const problem = describeSlackFailure(error);
    if (problem) deps.logger.error(`slack: posting ${file.filename} in ${channelId} failed: ${problem}`);
    else deps.logger.error(`slack: posting ${file.filename} in ${channelId} failed`, error);
    await respond({ text: reply.failed });
    return;
  }
  await respond({ text: reply.posted });
}

/** A verb's reply, shown to whoever asked: a form opens as a modal, a file is posted in the channel, anything else is an ephemeral message. */
async function show(
  deps: SlackDeps,
  reply: ChatReply,
  client: webApi.WebClient,
  opener: { triggerId: string; responseUrl: string; channelId: string },
  respond: (message: { text: string; blocks?: unknown[] }) => Promise<unknown>,
): Promise<void> {
  if (reply.kind === 'form') {
    try {
      await openModal(client, reply.form, opener);
    } catch (error) {
      // The trigger_id lives 3 seconds; whoever asked can try again.
      deps.logger.error('slack: views.open failed', error);
      await respond({ text: FORM_NOT_OPENED });
    }
    return;
  }
  if (reply.kind === 'file') {
    await postFile(deps, client, opener.channelId, reply, respond);
    return;
  }
  await respond(replyMessage(reply));
}

/** Acks at once, then answers through the response_url: the work may take longer than Slack's 3 seconds. */
export function registerCommands(app: App, deps: SlackDeps): void {
  for (const name of SLACK_COMMANDS) {
    app.command(name, async ({ ack, command, client, respond }) => {
      await ack();
      const c: SlashCommand = command;
      const origin: SlackOrigin = { teamId: c.team_id, channelId: c.channel_id, userId: c.user_id, triggerId: c.trigger_id };
      const call = verbOf(name, c.text);
      const reply = await runVerb(slackRequest(deps, origin, client), call, `${name} ${call.verb}`);
      await show(deps, reply, client, { triggerId: c.trigger_id, responseUrl: c.response_url, channelId: c.channel_id }, (m) =>
        respond({ response_type: 'ephemeral', ...(m as { text: string }) }),
      );
    });
  }

  /** A button: ack, then run its verb; a form opens with the trigger_id. */
  const button = (verbOfValue: (value: string) => VerbCall) => async (args: SlackActionMiddlewareArgs<BlockButtonAction> & { client: webApi.WebClient }) => {
    const { ack, body, action, client, respond } = args;
    await ack();
    const teamId = body.team?.id ?? body.user.team_id ?? '';
    const channelId = body.channel?.id ?? '';
    const call = verbOfValue(action.value ?? '');
    const reply = await runVerb(
      slackRequest(deps, { teamId, channelId, userId: body.user.id, triggerId: body.trigger_id }, client),
      call,
      `the ${action.action_id} button`,
    );
    await show(deps, reply, client, { triggerId: body.trigger_id, responseUrl: body.response_url, channelId }, (m) =>
      respond({ response_type: 'ephemeral', replace_original: false, ...(m as { text: string }) }),
    );
  };
  /** The buttons of an incident's message open its forms. */
  const incidentForm =
    (form: 'update' | 'resolve') =>
    (value: string): VerbCall => {
      const id = Number(value);
      return Number.isSafeInteger(id) ? { verb: 'form', form, target: id } : { verb: 'usage', syntax: 'incident' };
    };
  app.action<BlockButtonAction>({ type: 'block_actions', action_id: ACTION_POST_UPDATE }, button(incidentForm('update')));
  app.action<BlockButtonAction>({ type: 'block_actions', action_id: ACTION_RESOLVE }, button(incidentForm('resolve')));
  app.action<BlockButtonAction>(
    { type: 'block_actions', action_id: ACTION_REPORT },
    button((service) => ({ verb: 'report', service })),
  );
}
