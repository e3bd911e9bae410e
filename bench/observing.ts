import type { Logger } from '../src/infrastructure/logger.js';
import { silentLogger } from '../src/infrastructure/pino-logger.js';
import type { Metrics } from '../src/metrics/metrics.js';

/*
 * What observing costs is measured by turning it off and on again in one
 * running server under one load: its logger and its metrics hooks follow a
 * switch. The product itself has no such switch: logs, metrics and the
 * audit trail are always on. (Audit rows are written with the change they
 * record and are not part of this comparison.)
 */

/** Logs and metrics on or off, flipped while the server runs. */
export interface ObservingSwitch {
  on: boolean;
}

/** `logger` while the switch is on, nothing while it is off. */
export function switchedLogger(logger: Logger, observing: ObservingSwitch): Logger {
  const to = () => (observing.on ? logger : silentLogger);
  return {
    debug: (message, fields) => to().debug(message, fields),
    info: (message, fields) => to().info(message, fields),
    warn: (message, fields) => to().warn(message, fields),
    error: (message, error, fields) => to().error(message, error, fields),
    child: (fields) => switchedLogger(logger.child(fields), observing),
    flush: () => logger.flush?.(),
  };
}

/** The server's metrics hooks, observing only while the switch is on; the registry is the server's. */
export function switchedMetrics(metrics: Metrics, observing: ObservingSwitch): Metrics {
  const when =
    <A extends unknown[]>(hook: (...args: A) => void) =>
    (...args: A): void => {
      if (observing.on) hook(...args);
    };
  return {
    registry: metrics.registry,
    requestFinished: when(metrics.requestFinished),
    delivered: when(metrics.delivered),
    probed: when(metrics.probed),
    feedFetched: when(metrics.feedFetched),
    jobRan: when(metrics.jobRan),
    writeBatch: when(metrics.writeBatch),
    pageRendered: when(metrics.pageRendered),
  };
}
