/**
 * Child process for `npm run bench`: the real statusbot server on a temp DB.
 * Started with fork(); talks to the parent over IPC.
 *   argv: <dbPath> <configPath>
 *   -> { type: 'ready', port }          once listening
 *   <- { type: 'rss' } -> { type: 'rss', maxRssKb, rssKb }
 *   <- { type: 'cpu' } -> { type: 'cpu', micros }             CPU time used so far
 *   <- { type: 'observing', on } -> { type: 'observing', on }  logs, metrics and the audit trail on or off from now
 *   <- { type: 'stop' }                 closes and exits 0
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load-config.js';
import { createLogger } from '../src/infrastructure/pino-logger.js';
import { startServer } from '../src/main.js';
import type { ChildReply, ParentMessage } from './ipc.js';
import { switchedLogger, switchedMetrics } from './observing.js';
import type { ObservingSwitch } from './observing.js';

const [dbPath, configPath] = process.argv.slice(2);
if (!dbPath || !configPath || !process.send) {
  console.error('usage: fork(server-entry.js, [dbPath, configPath]) with an IPC channel');
  process.exit(2);
}

const reply = (message: ChildReply) => process.send?.(message);

// Observing on: every request is a JSON line in a file, as in production, and observed in the metrics. The parent
// turns it off and on again to measure what it costs in this very process.
const observing: ObservingSwitch = { on: true };
const logFile = join(tmpdir(), `statusbot-bench-${process.pid}.log`);
const server = await startServer({
  dbPath,
  port: 0,
  host: '127.0.0.1',
  config: loadConfig(configPath, process.env).config,
  logger: switchedLogger(createLogger({ level: 'info', file: logFile }), observing),
  metrics: (metrics) => switchedMetrics(metrics, observing),
  // The API is measured; notifications queue up in the outbox (their hosts are not reachable from here).
  delivery: { enabled: false },
  env: {},
  // The links a start prints are for a person starting statusbot; here they would cut into the bench's own lines.
  notice: () => undefined,
});

process.on('message', (message: ParentMessage) => {
  if (message.type === 'rss') {
    reply({ type: 'rss', maxRssKb: process.resourceUsage().maxRSS, rssKb: Math.round(process.memoryUsage.rss() / 1024) });
  } else if (message.type === 'cpu') {
    const used = process.cpuUsage();
    reply({ type: 'cpu', micros: used.user + used.system });
  } else if (message.type === 'observing') {
    if (process.env.BENCH_OBSERVING_AA !== '1') observing.on = message.on;
    reply({ type: 'observing', on: observing.on });
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
