/**
 * The probing benchmark (part of `npm run bench`): statusbot probes N custom
 * monitors (default 10,000) at a 60 s interval against a local target, for a
 * measured window after a warm-up. Reports the share of probes started more
 * than 1 s late, the CPU statusbot used (in cores), and its peak RSS.
 *
 * Environment: BENCH_MONITORS (default 10000), BENCH_PROBE_SECONDS (measured window, default 120),
 * BENCH_PROBE_WARMUP_SECONDS (default 65: one full round of probes first).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordResult } from './results.js';
import { startServingChild } from './serving-child.js';

const MONITORS = Number(process.env.BENCH_MONITORS ?? 10_000);
const SECONDS = Number(process.env.BENCH_PROBE_SECONDS ?? 120);
const WARMUP = Number(process.env.BENCH_PROBE_WARMUP_SECONDS ?? 65);
const TARGETS = { lateShare: 0.01, cores: 0.5, rssMb: 300 };

async function main(): Promise<number> {
  let hits = 0;
  const target = createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(req.url?.startsWith('/kw') ? '<html>Welcome. Sign in</html>' : 'ok');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const port = (target.address() as AddressInfo).port;

  const dir = mkdtempSync(join(tmpdir(), 'statusbot-probe-bench-'));
  const lines = ['rate_limit: { per_minute: 100000 }', 'companies:', '  - name: Bench', '    api_keys: ["bench-key-0123456789"]', '    custom_monitors:'];
  for (let i = 1; i <= MONITORS; i++) {
    // One in four is a keyword probe.
    lines.push(
      i % 4 === 0
        ? `      - { id: ${i}, name: m${i}, url: "http://127.0.0.1:${port}/kw/${i}", probe_type: keyword, keyword: "Sign in", interval_seconds: 60 }`
        : `      - { id: ${i}, name: m${i}, url: "http://127.0.0.1:${port}/p/${i}", probe_type: ping, interval_seconds: 60 }`,
    );
  }
  const configPath = join(dir, 'statusbot.yml');
  writeFileSync(configPath, `${lines.join('\n')}\n`);

  let child: Awaited<ReturnType<typeof startServingChild>> | undefined;
  try {
    child = await startServingChild(join(dir, 'statusbot.db'), configPath);
    console.log(`probing bench: ${MONITORS} monitors every 60 s against a local target; ${WARMUP} s warm-up, ${SECONDS} s measured`);
    await new Promise((r) => setTimeout(r, WARMUP * 1000));
    const start = await child.mark();
    const t0 = process.hrtime.bigint();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const end = await child.mark();
    const wallMicros = Number(process.hrtime.bigint() - t0) / 1000;

    const started = end.stats.started - start.stats.started;
    const late = end.stats.late - start.stats.late;
    const lateShare = started ? late / started : 0;
    const cores = (end.cpuMicros - start.cpuMicros) / wallMicros;
    const rssMb = end.maxRssKb / 1024;
    const expected = (MONITORS * SECONDS) / 60;
    const rows: [string, string, string][] = [
      ['probes started in the window', `${started} (expected ~${Math.round(expected)})`, ''],
      ['probes started > 1 s late', `${(lateShare * 100).toFixed(3)}% (${late})`, lateShare < TARGETS.lateShare ? 'yes' : 'NO'],
      ['statusbot CPU', `${cores.toFixed(3)} cores`, cores < TARGETS.cores ? 'yes' : 'NO'],
      ['statusbot peak RSS', `${rssMb.toFixed(1)} MB`, rssMb < TARGETS.rssMb ? 'yes' : 'NO'],
    ];
    console.log();
    for (const [what, value, met] of rows) console.log(`${what.padEnd(30)} ${value.padStart(26)}  ${met}`);
    console.log(`(target hits seen by the local server: ${hits})`);

    recordResult('probing', { monitors: MONITORS, seconds: SECONDS, started, late, lateShare, cores, peakRssMb: rssMb, date: new Date().toISOString() });
    return rows.every(([, , met]) => met !== 'NO') ? 0 : 1;
  } finally {
    await child?.stop();
    target.close();
    target.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
