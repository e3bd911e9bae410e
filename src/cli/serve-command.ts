import { emptyConfig } from '../config/load-config.js';
import { startServer } from '../main.js';
import { CommandError, UsageError } from './cli-errors.js';
import { commandLogger } from './command-logger.js';
import type { Command } from './command.js';
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

export const serveCommand: Command = {
  name: 'serve',
  synopsis: '[--port N] [--host ADDRESS] [--db FILE|URL] [--config FILE]',
  summary: 'serve the API (the default command)',
  details: [
    'Applies the config (if any) and pending migrations, then serves /api/v2, the status pages and chat.',
    'On a database without companies and without companies in the config, it makes a demo company and prints its key once',
    '(not with demo: false in the config). Its start lines name the home page, the demo page and the API reference.',
    'SIGTERM or SIGINT stops it: work under way finishes (bounded), then it exits 0.',
  ].join('\n'),
  options: ['port', 'host', 'db', 'config'],
  async run(input) {
    const loaded = configOf(input.configFile);
    const port = portOf(input.string('port') ?? input.env.PORT);
    const host = input.string('host') || input.env.HOST || undefined;
    const config = loaded?.config ?? emptyConfig();
    const logger = commandLogger(input);
    // Listened for before the start: a signal that comes while it starts (after the start lines, say) stops it once started.
    let signalled: (signal: string) => void = () => {};
    const stopping = new Promise<string>((resolve) => {
      signalled = resolve;
    });
    const onSignal = (signal: NodeJS.Signals) => signalled(signal);
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    void stopping.then((signal) => input.out(`${signal}: shutting down`));
    try {
      const server = await onDatabase(input.dbPath, () =>
        withConfigErrors(loaded, input.configFile, () => startServer({ dbPath: input.dbPath, port, host, config, logger, notice: input.out, env: input.env })),
      ).catch((error: unknown) => {
        throw listenProblem(error, host ?? '0.0.0.0', port) ?? error;
      });
      await stopping;
      await server.close();
      return 0;
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
  },
};
