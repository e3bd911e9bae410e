import { emptyConfig, withEnvironment } from '../config/load-config.js';
import { startServer } from '../main.js';
import { STOP_DEADLINE_MS } from '../stop-times.js';
import type { Notice, RunningServer } from '../main.js';
import { CommandError, UsageError } from './cli-errors.js';
import { commandLogger } from './command-logger.js';
import type { CommandInput } from './command.js';
import { configOf, withConfigErrors } from './config-access.js';
import { onDatabase } from './database-access.js';

export function portOf(value: string | undefined): number {
  if (value === undefined || value === '') return 8080;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new UsageError(`the port must be a number from 0 to 65535, not "${value}"`);
  return port;
}

/** Why the listener could not start, in one line with the way out; null for other errors. */
function listenProblem(error: unknown, host: string, port: number): CommandError | null {
  const e = error as { code?: unknown; syscall?: unknown; hostname?: unknown } | null;
  const on = host === '0.0.0.0' ? '' : ` on ${host}`;
  if (e?.syscall === 'listen') {
    switch (e.code) {
      case 'EADDRINUSE':
        return new CommandError(`port ${port}${on} is already in use (by another statusbot or another program); choose another with --port N (or PORT)`);
      case 'EACCES':
        return new CommandError(`port ${port}${on} needs privileges this user lacks; choose one above 1023 with --port N (or PORT)`);
      case 'EADDRNOTAVAIL':
        return new CommandError(
          `cannot listen on ${host}: it is not an address of this machine; choose one with --host (or HOST), or 0.0.0.0 for every address`,
        );
    }
  }
  if (e?.syscall === 'getaddrinfo' && e.hostname === host) {
    return new CommandError(`cannot listen on ${host}: no such host; choose an address of this machine with --host (or HOST)`);
  }
  return null;
}

/**
 * What the start tells the operator: readable lines on a terminal; elsewhere one JSON line each, in the shape
 * of the log's, so that stdout stays JSON lines. Written here, not through the log, which would redact the demo key.
 */
function noticeFor(input: CommandInput): (text: string, fields: Notice) => void {
  if (input.stdout.isTTY) return (text) => input.out(text);
  return (_text, fields) => input.out(JSON.stringify({ level: 30, time: Date.now(), ...fields }));
}

/** `statusbot serve`, as commands.ts describes it. */
export async function runServe(input: CommandInput): Promise<number> {
  const loaded = configOf(input.configFile, input.env);
  const port = portOf(input.string('port') ?? input.env.PORT);
  const host = input.string('host') || input.env.HOST || undefined;
  const config = withEnvironment(loaded?.config ?? emptyConfig(), input.env);
  const logger = commandLogger(input);
  let server: RunningServer | null = null;
  let stopSignal: NodeJS.Signals | null = null;
  let deadline: NodeJS.Timeout | undefined;
  let stopRequested: () => void = () => {};
  const stopping = new Promise<void>((resolve) => {
    stopRequested = resolve;
  });
  let abandon: (code: number) => void = () => {};
  const abandoned = new Promise<number>((resolve) => {
    abandon = resolve;
  });
  const stillRunning = () => (server ? server.stillRunning() : ['the start']);
  // What hangs is left behind: the process ends now (the process's own), or the command returns.
  const end = (code: number) => {
    logger.flush?.();
    input.exit?.(code);
    abandon(code);
  };
  // Listened for before the start: a signal that comes while it starts (after the start lines, say) stops it once started.
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopSignal) {
      logger.warn(`${signal} while stopping: ending at once`, { signal, stillRunning: stillRunning() });
      end(1);
      return;
    }
    stopSignal = signal;
    logger.info(`${signal}: stopping; a second signal ends at once`, { signal });
    deadline = setTimeout(() => {
      const parts = stillRunning();
      logger.error(`the stop took over ${STOP_DEADLINE_MS / 1000} s: ending with ${parts.join(', ')} still running`, undefined, {
        signal,
        stillRunning: parts,
      });
      end(1);
    }, STOP_DEADLINE_MS);
    stopRequested();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const starting = onDatabase(
      input.dbPath,
      () =>
        withConfigErrors(loaded, input.configFile, () =>
          startServer({ dbPath: input.dbPath, port, host, config, logger, notice: noticeFor(input), env: input.env }),
        ),
      { created: (line) => logger.info(line, { db: input.dbPath }) },
    ).catch((error: unknown) => {
      throw listenProblem(error, host ?? '0.0.0.0', port) ?? error;
    });
    const started = await Promise.race([starting, abandoned]);
    if (typeof started === 'number') {
      starting.catch(() => undefined);
      return started;
    }
    server = started;
    const running = started;
    const stopped = stopping
      .then(() => running.close())
      .then(() => {
        logger.info(`stopped on ${stopSignal}`, { signal: stopSignal });
        logger.flush?.();
        return 0;
      });
    return await Promise.race([stopped, abandoned]);
  } finally {
    clearTimeout(deadline);
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
