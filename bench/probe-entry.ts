/**
 * Child process for the probing benchmark: statusbot serving with its job
 * scheduler on, over a temp DB whose config declares the monitors.
 *   argv: <dbPath> <configPath>
 *   -> { type: 'ready', port } once serving
 *   <- { type: 'mark' } -> { type: 'mark', cpuMicros, stats }   (CPU used so far, prober counters)
 *   <- { type: 'stop' } closes and exits 0
 */
import { loadConfig } from '../src/config/load-config.js';
import { startServer } from '../src/main.js';
import { createLogger } from '../src/infrastructure/pino-logger.js';

const [dbPath, configPath] = process.argv.slice(2);
if (!dbPath || !configPath || !process.send) {
  console.error('usage: fork(probe-entry.js, [dbPath, configPath]) with an IPC channel');
  process.exit(2);
}

const server = await startServer({
  dbPath,
  port: 0,
  host: '127.0.0.1',
  config: loadConfig(configPath, process.env).config,
  logger: createLogger({ level: 'error' }),
  env: {},
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'mark') {
    const cpu = process.cpuUsage();
    process.send?.({
      type: 'mark',
      cpuMicros: cpu.user + cpu.system,
      stats: { ...server.prober.stats },
      maxRssKb: process.resourceUsage().maxRSS,
    });
  } else if (message.type === 'stop') {
    void server.close().then(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready', port: server.port });
