/**
 * `npm run bench`: what an idle server costs with a large outbox. The same
 * server, its jobs off, delivery on, idles for BENCH_IDLE_SECONDS (default 10)
 * on an empty outbox and on one of BENCH_IDLE_SENT_ROWS (default 1,000,000)
 * sent rows (SQLite); the CPU time each used is printed, and their ratio.
 * The outbox worker looks for due rows every second: that look must cost the
 * same whatever number of delivered rows the table holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { startServer } from '../src/main.js';
import { silentLogger } from '../src/infrastructure/pino-logger.js';

const SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const SENT_ROWS = Number(process.env.BENCH_IDLE_SENT_ROWS ?? 1_000_000);

const start = (dbPath: string) => startServer({ dbPath, port: 0, host: '127.0.0.1', logger: silentLogger, env: {}, jobs: false, notice: () => undefined });

function fillWithSentRows(dbPath: string, count: number): void {
  const db = new BetterSqlite3(dbPath);
  try {
    const { id } = db.prepare('select min(id) as id from companies').get() as { id: number };
    const insert = db.prepare(
      "insert into outbox (company_id, stream, event, payload, state, attempts, next_attempt_at, created_at, sent_at) values (?, ?, 'incident.updated', '{}', 'sent', 1, 0, 0, 0)",
    );
    db.transaction(() => {
      for (let i = 0; i < count; i++) insert.run(id, `subscriber:${i % 1_000}`);
    })();
  } finally {
    db.close();
  }
}

/** CPU milliseconds this process spends over `seconds` of a started server's idling (after a second to settle). */
async function idleCpuMs(dbPath: string): Promise<number> {
  const server = await start(dbPath);
  try {
    await new Promise((r) => setTimeout(r, 1_000));
    const before = process.cpuUsage();
    await new Promise((r) => setTimeout(r, SECONDS * 1_000));
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1_000;
  } finally {
    await server.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'statusbot-bench-idle-'));
try {
  const empty = join(dir, 'empty.db');
  const full = join(dir, 'full.db');
  // Each database is migrated and set up by a first start, as in production.
  for (const path of [empty, full]) await (await start(path)).close();
  fillWithSentRows(full, SENT_ROWS);
  const emptyMs = await idleCpuMs(empty);
  const fullMs = await idleCpuMs(full);
  const pct = (ms: number) => `${((ms / (SECONDS * 1_000)) * 100).toFixed(2)}% CPU`;
  console.log(
    `idle server, ${SECONDS} s: empty outbox ${emptyMs.toFixed(0)} ms (${pct(emptyMs)}), ${SENT_ROWS.toLocaleString('en')} sent rows ${fullMs.toFixed(0)} ms (${pct(fullMs)})`,
  );
  console.log(`ratio ${(fullMs / Math.max(emptyMs, 1)).toFixed(2)}× (the target: about 1×)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
