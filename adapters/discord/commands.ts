import { ApplicationCommandOptionType } from 'discord.js';
import type {
  APIApplicationCommandAutocompleteResponse,
  APIAutocompleteApplicationCommandInteractionData,
  APIChatInputApplicationCommandInteractionData,
} from 'discord.js';
import { InteractionResponseType } from 'discord.js';
import { companyForWorkspace } from '../../src/domain/chat/chat-links.js';
import type { Syntax } from '../chat/dialect.js';
import { suggest } from '../chat/suggestions.js';
import type { ChatRequest } from '../chat/chat-request.js';
import type { VerbCall } from '../chat/verbs.js';

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

const ID_COMMANDS: Readonly<Record<string, Syntax>> = {
  'incident update': 'incident_update',
  'incident resolve': 'incident_resolve',
  'incident show': 'incident_show',
};

const SUBSCRIPTION_OPTIONS = ['service', 'monitor', 'board', 'schedule', 'timezone', 'only_on_change', 'edit_in_place'];

/** A slash command as a verb; Discord has checked the options' types and presence already. */
export function verbOf(data: APIChatInputApplicationCommandInteractionData): VerbCall {
  const i = invocationOf(data);
  const str = (name: string) => (i.options.has(name) ? String(i.options.get(name)) : undefined);
  const id = Number(i.options.get('id'));
  const [, group, target] = i.path.split(' ');
  if ((group === 'subscribe' || group === 'unsubscribe') && target) {
    const input: Record<string, unknown> = { target };
    for (const name of SUBSCRIPTION_OPTIONS) if (i.options.has(name)) input[name] = i.options.get(name);
    return { verb: group, input };
  }
  switch (i.path) {
    case 'statusbot help':
      return { verb: 'help' };
    case 'statusbot link':
      return { verb: 'link', key: str('key') ?? '' };
    case 'statusbot subscriptions':
      return { verb: 'subscriptions' };
    case 'statusbot maintenance':
      return { verb: 'maintenance' };
    case 'status':
    case 'statusbot status':
      return { verb: 'status', service: str('service') ?? '' };
    case 'statusbot report':
      return { verb: 'report', service: str('service') ?? '' };
    case 'incident new':
      return { verb: 'form', form: 'new', target: str('service') ?? null, ...(i.options.has('lead') ? { lead: str('lead')! } : {}) };
    case 'incident list':
      return { verb: 'list' };
    case 'incident lead':
      return { verb: 'lead', id: i.options.has('id') ? id : null, member: str('lead') ?? '' };
    case 'incident room':
      return { verb: 'room', id: i.options.has('id') ? id : null };
    case 'incident note':
      return { verb: 'note', text: str('text') ?? '' };
    case 'incident postmortem':
      return { verb: 'postmortem', id: i.options.has('id') ? id : null };
  }
  const syntax = ID_COMMANDS[i.path];
  if (syntax && (!Number.isSafeInteger(id) || id < 1)) return { verb: 'usage', syntax };
  switch (i.path) {
    case 'incident update':
      return { verb: 'form', form: 'update', target: id, ...(i.options.has('lead') ? { lead: str('lead')! } : {}) };
    case 'incident resolve':
      return { verb: 'resolve', id, message: str('message') };
    case 'incident show':
      return { verb: 'show', id };
    default:
      return { verb: 'unknown', typed: `/${i.path}` };
  }
}

// Discord refuses the whole answer when one choice's name or value is over 100 characters.
const CHOICE_MAX = 100;

export const NO_CHOICES: APIApplicationCommandAutocompleteResponse = {
  type: InteractionResponseType.ApplicationCommandAutocompleteResult,
  data: { choices: [] },
};

/** Suggestions for the focused option; none in an unlinked guild. */
export async function autocomplete(
  req: ChatRequest,
  data: APIAutocompleteApplicationCommandInteractionData,
): Promise<APIApplicationCommandAutocompleteResponse> {
  const i = invocationOf(data);
  const company = await companyForWorkspace(req.ctx, 'discord', req.workspaceId);
  if (!company || !i.focused) return NO_CHOICES;
  const found = await suggest(req.ctx, company, i.focused.name, i.focused.text, { ownServices: i.path === 'incident new', labelMax: CHOICE_MAX });
  return {
    type: InteractionResponseType.ApplicationCommandAutocompleteResult,
    data: { choices: found.filter((s) => String(s.value).length <= CHOICE_MAX).map((s) => ({ name: s.label, value: s.value })) },
  };
}
