import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the WAL is copied back into the database file. */
export const CHECKPOINT_INTERVAL_MS = 250;

/**
 * The worker's code, CommonJS run from a string: a file of its own would be
 * TypeScript under the test runner, which does not reach worker threads.
 * better-sqlite3 is resolved by the parent and handed over.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const done = new Int32Array(workerData.done);
const Database = require(workerData.module);
const db = new Database(workerData.path);
// Never wait on another process's lock: a checkpoint that cannot run now runs at the next turn.
db.pragma('busy_timeout = 0');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy, or the file went away: the next turn tries again, and the writer's own checkpoints are the fallback.
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  try {
    db.close();
  } finally {
    Atomics.store(done, 0, 1);
    Atomics.notify(done, 0);
    parentPort.close();
  }
});
`;

/** How long closing the database waits for the worker's connection to close. */
const STOP_WAIT_MS = 5_000;

export interface BackgroundCheckpoints {
  /**
   * Closes the worker's connection, and returns once it is closed: the
   * serving connection, closed next, is then the last one and copies the log
   * back itself, and nothing touches the files after the database is closed
   * (a folder removed next is removed whole).
   */
  stop(): void;
}

/**
 * SQLite copies its write-ahead log back into the database file in the
 * commit that fills it past 1,000 pages, with a sync of both: that commit
 * then holds the event loop for 10–20 ms, and every request waits behind it.
 * A serving process turns those checkpoints off on its connection (the caller
 * sets `wal_autocheckpoint = 0`) and makes them here instead, on a connection
 * of its own in a worker thread, every CHECKPOINT_INTERVAL_MS. PASSIVE
 * checkpoints never block writers or readers.
 */
export function startBackgroundCheckpoints(path: string, intervalMs = CHECKPOINT_INTERVAL_MS): BackgroundCheckpoints {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const done = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER, { eval: true, workerData: { module, path, intervalMs, done } });
  worker.unref();
  let failed = false;
  worker.on('error', () => {
    failed = true;
  });
  return {
    stop() {
      if (failed) return;
      worker.postMessage('stop');
      // Closing a database is synchronous (better-sqlite3, kysely's destroy): so is waiting for this one.
      Atomics.wait(new Int32Array(done), 0, 0, STOP_WAIT_MS);
    },
  };
}
