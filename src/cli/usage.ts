import type { Command } from './command.js';
import { OPTIONS } from './command.js';
import type { OptionName } from './command.js';
import { COMMANDS } from './commands.js';

const COLUMN = 60;

/** A usage and its summary in two columns; a usage too long for the first puts the summary on the next line. */
const line = (usage: string, summary: string) =>
  usage.length < COLUMN - 3 ? `  ${usage.padEnd(COLUMN - 3)} ${summary}` : `  ${usage}\n${' '.repeat(COLUMN)}${summary}`;

/** The general usage: every command on one line, and the options most of them take. */
export function generalUsage(): string {
  const commands = COMMANDS.map((c) => line(`statusbot ${c.name === 'serve' ? '[serve]' : c.name} ${c.synopsis}`, c.summary));
  return [
    'statusbot — incident and status service',
    '',
    'Usage:',
    ...commands,
    line('statusbot help [COMMAND] | COMMAND --help | --version', "this text, a command's help, or the version"),
    '',
    'Options and environment:',
    ...(['port', 'host', 'db', 'config'] as const).map((name) => optionLine(name)),
    '',
  ].join('\n');
}

function optionLine(name: keyof typeof OPTIONS): string {
  const o = OPTIONS[name];
  const flag = `--${name}${'value' in o ? ` ${o.value}` : ''}`;
  return `  ${flag.padEnd(16)} ${('env' in o ? o.env : '').padEnd(17)} ${o.help}`;
}

/** The options part of a command's usage: the options it takes, none other. */
const optionLines = (command: Command, names: readonly OptionName[] = command.options): string[] =>
  names.length > 0 ? ['', 'Options and environment:', ...names.map(optionLine)] : [];

/** What a mistake on a command's line is followed by: its usage line and its options, nothing of other commands. */
export function commandUsage(command: Command): string {
  return [`Usage: statusbot ${command.name} ${command.synopsis}`, ...optionLines(command), '', `statusbot ${command.name} --help tells more.`, ''].join('\n');
}

/** `statusbot NAME --help`: its usage line, what it does, its options. */
export function commandHelp(command: Command): string {
  return [
    `Usage: statusbot ${command.name} ${command.synopsis}`,
    '',
    `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`,
    ...(command.details ? [command.details] : []),
    ...optionLines(command, [...command.options, ...(command.moreOptions ?? [])]),
    '',
  ].join('\n');
}

/** The commands of a group (`key`, `outbox`, …), for `statusbot key --help` and mistakes in it. */
export function groupUsage(group: string, commands: readonly Command[]): string {
  return [
    `Usage:`,
    ...commands.map((c) => line(`statusbot ${c.name} ${c.synopsis}`, c.summary)),
    '',
    `statusbot ${group} COMMAND --help shows one in full.`,
    '',
  ].join('\n');
}
