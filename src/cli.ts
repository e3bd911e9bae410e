#!/usr/bin/env node
import { ConfigError } from './config/load-config.js';
import { DatabaseUnavailableError } from './db/database.js';
import { CopyRefusedError } from './db/copy.js';
import { DomainError } from './domain/errors.js';
import type { DomainErrorCode } from './domain/errors.js';
import { CommandError, UsageError } from './cli/cli-errors.js';
import { run } from './cli/dispatch.js';
import { generalUsage } from './cli/usage.js';

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

/** Every failure is rendered here: one line naming the cause and the way out; a stack only for what nobody foresaw. */
function report(error: unknown): number {
  if (error instanceof UsageError) {
    console.error(`statusbot: ${error.message}\n\n${error.usage ?? generalUsage()}`);
    return 2;
  }
  if (error instanceof ConfigError) {
    console.error(error.message);
    return 1;
  }
  if (error instanceof DomainError) {
    console.error(`statusbot: ${error.message}`);
    return exitCodeOf(error.code);
  }
  if (error instanceof CommandError || error instanceof DatabaseUnavailableError || error instanceof CopyRefusedError) {
    console.error(`statusbot: ${error.message}`);
    return 1;
  }
  console.error('statusbot:', error);
  return 1;
}

async function main(): Promise<void> {
  try {
    const code = await run(process.argv.slice(2));
    if (code !== null) process.exitCode = code;
  } catch (error) {
    process.exitCode = report(error);
  }
}

void main();
