import { resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { buildInfo, versionLine } from './build-info.js';
import { UsageError } from './cli-errors.js';
import { DatabaseTargetError, databaseTarget, isPostgresUrl } from '../db/database-url.js';
import type { CliIo, Command, CommandInput, OptionName } from './command.js';
import { DEFAULT_DB, OPTIONS } from './command.js';
import { COMMANDS } from './commands.js';
import { commandHelp, commandUsage, generalUsage, groupUsage } from './usage.js';

type Specs = NonNullable<ParseArgsConfig['options']>;

const ALWAYS: Specs = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } };

function specsOf(names: readonly OptionName[]): Specs {
  const specs: Specs = { ...ALWAYS };
  for (const name of names) specs[name] = { type: OPTIONS[name].type };
  return specs;
}

const ALL_OPTIONS = specsOf(Object.keys(OPTIONS) as OptionName[]);

/** What the words of a command line name: a command (and its operands), a group without a known verb, or nothing known. */
type Resolved =
  | { kind: 'command'; command: Command; operands: string[] }
  | { kind: 'group'; group: string; verb: string | undefined; commands: Command[] }
  | { kind: 'unknown'; word: string };

function resolve(words: string[]): Resolved {
  if (words.length === 0) return { kind: 'command', command: COMMANDS[0]!, operands: [] };
  const two = COMMANDS.find((c) => c.name === `${words[0]} ${words[1]}`);
  if (two) return { kind: 'command', command: two, operands: words.slice(2) };
  const one = COMMANDS.find((c) => c.name === words[0]);
  if (one) return { kind: 'command', command: one, operands: words.slice(1) };
  const group = COMMANDS.filter((c) => c.name.startsWith(`${words[0]} `));
  if (group.length > 0) return { kind: 'group', group: words[0]!, verb: words[1], commands: group };
  return { kind: 'unknown', word: words[0]! };
}

function groupError(r: Extract<Resolved, { kind: 'group' }>): UsageError {
  const verbs = r.commands.map((c) => c.name.slice(r.group.length + 1)).join(', ');
  const message = r.verb === undefined ? `${r.group} needs one of: ${verbs}` : `unknown command "${r.group} ${r.verb}"; the ${r.group} commands are ${verbs}`;
  return new UsageError(message, groupUsage(r.group, r.commands));
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The name among `names` that `given` is a slip of (one or two edits away, one for short names), or null. */
export function nearest(given: string, names: readonly string[]): string | null {
  let best: { name: string; edits: number } | null = null;
  for (const name of names) {
    const edits = editDistance(given.toLowerCase(), name);
    if (edits <= (name.length <= 3 ? 1 : 2) && (!best || edits < best.edits)) best = { name, edits };
  }
  return best?.name ?? null;
}

/** parseArgs' own messages are long and tell about `--`; ours name the option and the command. */
function optionError(error: unknown, command: Command): UsageError {
  const e = error as { code?: string; message?: string };
  const option = /'(-[^' ]+)/.exec(e.message ?? '')?.[1] ?? '';
  const usage = commandUsage(command);
  const all = [...command.options, ...(command.moreOptions ?? [])];
  const takes = all.length > 0 ? all.map((o) => `--${o}`).join(', ') : 'no options';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const meant = option.startsWith('--') ? nearest(option.slice(2), [...all, 'help']) : null;
      const hint = meant ? `did you mean --${meant}?` : `it takes ${takes}`;
      return new UsageError(`unknown option ${option} for ${command.name}; ${hint}`, usage);
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = option.replace(/^-+/, '') as OptionName;
      const spec = OPTIONS[name] as { type: string; value?: string } | undefined;
      return new UsageError(spec?.type === 'string' ? `${option} needs a value: ${option} ${spec.value ?? 'VALUE'}` : `${option} takes no value`, usage);
    }
    default:
      return new UsageError(e.message ?? String(error), usage);
  }
}

function help(words: string[]): string {
  if (words.length === 0) return generalUsage();
  const r = resolve(words);
  if (r.kind === 'command') return commandHelp(r.command);
  if (r.kind === 'group' && r.verb === undefined) return groupUsage(r.group, r.commands);
  throw r.kind === 'group' ? groupError(r) : unknownCommand(r.word);
}

function unknownCommand(word: string): UsageError {
  const names = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!)), 'help'];
  const meant = nearest(word, names);
  return new UsageError(`unknown command "${word}"${meant ? `; did you mean ${meant}?` : ''}`, generalUsage());
}

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/**
 * The words of the command line, less those that may be the value of an
 * option no command knows (`--prot 18041`): the lenient pass took that option
 * for a flag, and its value for a word.
 */
function wordsBesideUnknownOptions(tokens: readonly Token[]): string[] {
  const words: string[] = [];
  let afterUnknown = -1;
  for (const token of tokens) {
    if (token.kind === 'option' && !(token.name in ALL_OPTIONS) && token.inlineValue === undefined) afterUnknown = token.index + 1;
    if (token.kind === 'positional' && token.index !== afterUnknown) words.push(token.value);
  }
  return words;
}

/** A path as the command line's working directory reads it: as given when that is the process's own. */
function pathIn(io: CliIo, given: string): string {
  return io.cwd === undefined || given === '' || given === ':memory:' || isPostgresUrl(given) ? given : resolvePath(io.cwd, given);
}

/** The database the command names (--db, else STATUSBOT_DB, else the default file), refused when it names none. */
function databaseOf(command: Command, given: unknown, env: NodeJS.ProcessEnv): string {
  const takesDb = [...command.options, ...(command.moreOptions ?? [])].includes('db');
  // A command without --db does not read STATUSBOT_DB: whatever it holds is no concern of `agent`.
  if (!takesDb) return DEFAULT_DB;
  const [value, from] =
    typeof given === 'string' ? [given, '--db'] : env.STATUSBOT_DB !== undefined ? [env.STATUSBOT_DB, 'STATUSBOT_DB'] : [DEFAULT_DB, '--db'];
  try {
    return databaseTarget(value, from);
  } catch (error) {
    throw error instanceof DatabaseTargetError ? new UsageError(error.message, commandUsage(command)) : error;
  }
}

/** Runs the command line and returns its exit code; a command line that cannot run throws (see cli.ts for how each error is told). */
export async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const { env } = io;
  // A first, lenient pass finds the command among the words (options of every command take their values).
  const loose = parseArgs({ args: argv, allowPositionals: true, strict: false, options: ALL_OPTIONS, tokens: true });
  const words = loose.positionals;
  if (loose.values.version === true) {
    io.stdout.write(`${versionLine(buildInfo())}\n`);
    return 0;
  }
  if (words[0] === 'help') {
    io.stdout.write(help(words.slice(1)));
    return 0;
  }
  if (loose.values.help === true) {
    io.stdout.write(help(words));
    return 0;
  }
  let r = resolve(words);
  if (r.kind !== 'command') {
    // Read without what an unknown option may have taken: the command's own parse then names that option.
    const beside = resolve(wordsBesideUnknownOptions(loose.tokens));
    if (beside.kind === 'command') r = beside;
  }
  if (r.kind === 'group') throw groupError(r);
  if (r.kind === 'unknown') throw unknownCommand(r.word);
  const { command, operands } = r;

  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: specsOf([...command.options, ...(command.moreOptions ?? [])]) }));
  } catch (error) {
    throw optionError(error, command);
  }
  const { min, max } = command.operands ?? { min: 0, max: 0 };
  if (operands.length > max)
    throw new UsageError(`${command.name} takes ${max === 0 ? 'no' : `at most ${max}`} arguments, got "${operands.join(' ')}"`, commandUsage(command));
  if (operands.length < min) throw new UsageError(`${command.name} needs ${command.synopsis.split(' ')[0]}`, commandUsage(command));

  const configFile = (typeof values.config === 'string' ? values.config : undefined) ?? env.STATUSBOT_CONFIG;
  const input: CommandInput = {
    operands,
    env,
    stdout: io.stdout,
    stderr: io.stderr,
    out: (line) => void io.stdout.write(`${line}\n`),
    err: (line) => void io.stderr.write(`${line}\n`),
    string: (name) => (typeof values[name] === 'string' ? values[name] : undefined),
    flag: (name) => values[name] === true,
    dbPath: pathIn(io, databaseOf(command, values.db, env)),
    configFile: configFile === undefined ? undefined : pathIn(io, configFile),
    path: (given) => pathIn(io, given),
    ...(io.exit ? { exit: io.exit } : {}),
  };
  try {
    return await command.run(input);
  } catch (error) {
    // A mistake found by the command itself is followed by that command's usage, not every command's.
    throw error instanceof UsageError && error.usage === undefined ? new UsageError(error.message, commandUsage(command)) : error;
  }
}
