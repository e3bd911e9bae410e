/**
 * Child process for `npm run bench`: the real statusbot server on a temp DB.
 * Started with fork(); talks to the parent over IPC.
 *   argv: <dbPath> <configPath>
 *   -> { type: 'ready', port }          once listening
 *   <- { type: 'rss' } -> { type: 'rss', maxRssKb, rssKb }
 *   <- { type: 'stop' }                 closes and exits 0
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load-config.js';
import { createLogger, silentLogger } from '../src/core/pino-logger.js';
import { startServer } from '../src/main.js';
import type { ChildReply, ParentMessage } from './ipc.js';

const [dbPath, configPath] = process.argv.slice(2);
if (!dbPath || !configPath || !process.send) {
  console.error('usage: fork(server-entry.js, [dbPath, configPath]) with an IPC channel');
  process.exit(2);
}

const reply = (message: ChildReply) => process.send?.(message);

// Observing on (the default): every request is a JSON line in a file, as in production; off: nothing is logged.
const observing = process.env.BENCH_OBSERVING !== 'off';
const logFile = join(tmpdir(), `statusbot-bench-${process.pid}.log`);
const server = await startServer({
  dbPath,
  port: 0,
  host: '127.0.0.1',
  config: loadConfig(configPath).config,
  logger: observing ? createLogger({ level: 'info', file: logFile }) : silentLogger,
  observability: observing,
  // The API is measured; notifications queue up in the outbox (their hosts are not reachable from here).
  delivery: { enabled: false },
  env: {},
});

process.on('message', (message: ParentMessage) => {
  if (message.type === 'rss') {
    reply({ type: 'rss', maxRssKb: process.resourceUsage().maxRSS, rssKb: Math.round(process.memoryUsage.rss() / 1024) });
  } else if (message.type === 'cpu') {
    const used = process.cpuUsage();
    reply({ type: 'cpu', micros: used.user + used.system });
  } else if (message.type === 'stop') {
    void server.close().then(() => {
      rmSync(logFile, { force: true });
      process.exit(0);
    });
  }
});
// The parent went away without saying stop: do not linger.
process.on('disconnect', () => process.exit(0));

reply({ type: 'ready', port: server.port });
