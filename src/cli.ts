#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import type { DomainErrorCode } from './domain/errors.js';
import { CommandError, UsageError } from './cli/cli-errors.js';
import type { CliIo } from './cli/command.js';
import { dispatch } from './cli/dispatch.js';
import { generalUsage } from './cli/usage.js';

export type { CliIo } from './cli/command.js';

/** How a command that failed in the domain exits; the message is the domain's own, on one line. */
function exitCodeOf(code: DomainErrorCode): number {
  switch (code) {
    case 'not_found':
    case 'invalid_input':
    case 'conflict':
    case 'forbidden':
    case 'unauthorized':
      return 1;
    default: {
      const unhandled: never = code;
      return unhandled;
    }
  }
}

/**
 * Every failure is rendered here: one line naming the cause and the way out; a stack only for what nobody foresaw.
 * The kinds of failure of the commands' own modules are loaded here, once one failed: the command line loads a
 * command's code only when it runs (see commands.ts).
 */
async function report(error: unknown, io: CliIo): Promise<number> {
  const tell = (text: string) => void io.stderr.write(`${text}\n`);
  if (error instanceof UsageError) {
    tell(`statusbot: ${error.message}\n\n${error.usage ?? generalUsage()}`);
    return 2;
  }
  if (error instanceof CommandError) {
    tell(`statusbot: ${error.message}`);
    return 1;
  }
  const [{ ConfigError }, { DatabaseUnavailableError }, { CopyRefusedError }, { SqliteFileError }, { DomainError }, { describeNetworkError, isNetworkError }] =
    await Promise.all([
      import('./config/load-config.js'),
      import('./db/database.js'),
      import('./db/copy.js'),
      import('./db/sqlite-files.js'),
      import('./domain/errors.js'),
      import('./infrastructure/outbound.js'),
    ]);
  if (error instanceof ConfigError) {
    tell(`statusbot: ${error.message}`);
    return 1;
  }
  if (error instanceof DomainError) {
    tell(`statusbot: ${error.message}`);
    return exitCodeOf(error.code);
  }
  if (error instanceof DatabaseUnavailableError || error instanceof CopyRefusedError || error instanceof SqliteFileError) {
    tell(`statusbot: ${error.message}`);
    return 1;
  }
  if (isNetworkError(error)) {
    tell(`statusbot: a network call failed: ${describeNetworkError(error, 0)}`);
    return 1;
  }
  // Anything else is a fault of statusbot: its stack is shown, for a report.
  tell(format('statusbot:', error));
  return 1;
}

/** The process's own streams and environment. */
export const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env, exit: (code) => process.exit(code) });

/**
 * Runs `statusbot ARGV` and returns its exit code, whatever went wrong; it never exits the process.
 * `serve` returns once a signal has stopped it.
 */
export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    return await report(error, io);
  }
}

/** Whether this file is the program node runs (the bin, through its link or not), rather than a module imported. */
function isMain(): boolean {
  const program = process.argv[1];
  if (!program) return false;
  try {
    return realpathSync(program) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  process.exitCode = await run(process.argv.slice(2));
  // The command has ended: whatever a library left running (a timer, an idle socket) does not hold the exit up for long.
  setTimeout(() => process.exit(), 1_000).unref();
}
