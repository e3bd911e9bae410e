import type { Logger } from '../infrastructure/logger.js';
import { createLogger, logLevelOf } from '../infrastructure/pino-logger.js';
import type { LogLevel } from '../infrastructure/pino-logger.js';
import { CommandError } from './cli-errors.js';
import type { CommandInput } from './command.js';

function logLevelFrom(value: string | undefined): LogLevel {
  try {
    return logLevelOf(value);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
}

/**
 * The log of a command, at its environment's LOG_LEVEL, on its stdout: the
 * process's own in batches (or readable on a terminal), a caller's line by line.
 */
export function commandLogger(input: CommandInput): Logger {
  const level = logLevelFrom(input.env.LOG_LEVEL);
  return input.stdout === process.stdout ? createLogger({ level }) : createLogger({ level, destination: { write: (line) => void input.stdout.write(line) } });
}
