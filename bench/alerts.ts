/**
 * The alert intake benchmark (part of `npm run bench`): Alertmanager posts
 * BENCH_ALERTS_RATE notifications a second (default 1,000, one alert each) to
 * /api/v2/alerts/alertmanager of statusbot on SQLite, for BENCH_ALERTS_SECONDS
 * (default 10, after BENCH_ALERTS_WARMUP_SECONDS at the same rate, default 2),
 * open loop: a slow answer does not slow the sender. The groups
 * cycle through what Alertmanager sends: a new group firing, the same again
 * (most notifications: Alertmanager repeats every group_interval), a second
 * alert joining, the group resolved, firing again. Reports the rate answered
 * 202 and the latency of the answers (p50, p99), the target being p99 < 50 ms.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordResult } from './results.js';
import { startServingChild } from './serving-child.js';

const RATE = Number(process.env.BENCH_ALERTS_RATE ?? 1_000);
const SECONDS = Number(process.env.BENCH_ALERTS_SECONDS ?? 10);
const GROUPS = Number(process.env.BENCH_ALERTS_GROUPS ?? 500);
/** Sent at the same rate before the measured window, so that it does not measure a process still warming up. */
const WARMUP = Number(process.env.BENCH_ALERTS_WARMUP_SECONDS ?? 2);
const SERVICES = 10;
const KEY = 'bench-key-0123456789';
const TARGETS = { p99Ms: 50, rateShare: 0.95 };
const TICK_MS = 10;

/** What the group's n-th notification says: its phase in the cycle of a group's life. */
const PHASES = ['fire-a', 'fire-a', 'fire-a', 'fire-ab', 'fire-ab', 'fire-ab', 'resolved', 'resolved'] as const;

function alertOf(group: number, which: 'a' | 'b', status: 'firing' | 'resolved') {
  const labels = {
    alertname: `BenchAlert${group}`,
    instance: `host-${which}:9100`,
    service: `svc-${group % SERVICES}`,
    severity: group % 3 === 0 ? 'critical' : 'warning',
  };
  return {
    status,
    labels,
    annotations: { summary: `Bench alert of group ${group}` },
    startsAt: '2026-11-22T10:00:00Z',
    endsAt: status === 'firing' ? '0001-01-01T00:00:00Z' : '2026-11-22T10:05:00Z',
    generatorURL: 'http://prometheus.invalid/graph',
    fingerprint: `${group.toString(16).padStart(12, '0')}${which === 'a' ? 'aaaa' : 'bbbb'}`,
  };
}

function payload(n: number): string {
  const group = n % GROUPS;
  const phase = PHASES[Math.floor(n / GROUPS) % PHASES.length]!;
  const status = phase === 'resolved' ? 'resolved' : 'firing';
  const alerts = phase === 'fire-a' ? [alertOf(group, 'a', 'firing')] : [alertOf(group, 'a', status), alertOf(group, 'b', status)];
  return JSON.stringify({
    version: '4',
    groupKey: `{}:{alertname="BenchAlert${group}"}`,
    truncatedAlerts: 0,
    status,
    receiver: 'statusbot',
    groupLabels: { alertname: `BenchAlert${group}` },
    commonLabels: { alertname: `BenchAlert${group}`, service: `svc-${group % SERVICES}` },
    commonAnnotations: { summary: `Bench alert of group ${group}` },
    externalURL: 'http://alertmanager.invalid:9093',
    alerts,
  });
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'statusbot-alerts-bench-'));
  const services = Array.from({ length: SERVICES }, (_, i) => `      - { id: ${1001 + i}, name: Service ${i}, urlname: svc-${i} }`);
  const config = [
    'rate_limit: { per_minute: 10000000 }',
    'jobs: { monitors: { enabled: false }, digests: { enabled: false } }',
    'companies:',
    '  - name: Bench',
    '    plan: business',
    `    api_keys: ["${KEY}"]`,
    '    custom_services:',
    ...services,
  ];
  const configPath = join(dir, 'statusbot.yml');
  writeFileSync(configPath, `${config.join('\n')}\n`);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let child: Awaited<ReturnType<typeof startServingChild>> | undefined;
  try {
    child = await startServingChild(join(dir, 'statusbot.db'), configPath);
    const port = child.port;
    console.log(`alerts bench: ${RATE} Alertmanager notifications/s for ${SECONDS} s (after ${WARMUP} s warm-up) over ${GROUPS} groups, SQLite`);

    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    const warmup = RATE * WARMUP;
    const post = (n: number) =>
      new Promise<void>((done) => {
        const body = payload(n);
        const started = performance.now();
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/v2/alerts/alertmanager',
            agent,
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            res.on('end', () => {
              if (n >= warmup) {
                latencies.push(performance.now() - started);
                statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
              }
              done();
            });
          },
        );
        req.on('error', () => {
          if (n >= warmup) statuses.set(0, (statuses.get(0) ?? 0) + 1);
          done();
        });
        req.end(body);
      });

    const pending: Promise<void>[] = [];
    const total = RATE * SECONDS;
    const t0 = performance.now();
    let measuredFrom = t0;
    await new Promise<void>((finished) => {
      const timer = setInterval(() => {
        // Open loop: as many as are due by now, whatever is still unanswered.
        const due = Math.min(warmup + total, Math.floor(((performance.now() - t0) / 1000) * RATE));
        if (sent < warmup && due >= warmup) measuredFrom = performance.now();
        while (sent < due) pending.push(post(sent++));
        if (sent >= warmup + total) {
          clearInterval(timer);
          finished();
        }
      }, TICK_MS);
    });
    await Promise.all(pending);
    const elapsedS = (performance.now() - measuredFrom) / 1000;

    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
    const accepted = statuses.get(202) ?? 0;
    const rate = accepted / elapsedS;
    const others = [...statuses].filter(([status]) => status !== 202).map(([status, n]) => `${status}: ${n}`);
    const rows: [string, string, string][] = [
      ['notifications answered 202', `${accepted} of ${total}`, accepted === total ? 'yes' : 'NO'],
      ['other answers', others.join(', ') || 'none', ''],
      ['achieved rate', `${rate.toFixed(0)}/s of ${RATE}/s`, rate >= RATE * TARGETS.rateShare ? 'yes' : 'NO'],
      ['latency p50 / p99', `${p(0.5).toFixed(1)} ms / ${p(0.99).toFixed(1)} ms`, p(0.99) < TARGETS.p99Ms ? 'yes' : 'NO'],
      ['latency max', `${(latencies.at(-1) ?? Number.NaN).toFixed(1)} ms`, ''],
    ];
    console.log();
    for (const [what, value, met] of rows) console.log(`${what.padEnd(30)} ${value.padStart(26)}  ${met}`);

    recordResult('alerts', {
      rate: RATE,
      seconds: SECONDS,
      warmupSeconds: WARMUP,
      groups: GROUPS,
      achievedRate: rate,
      p50Ms: p(0.5),
      p99Ms: p(0.99),
      accepted,
      date: new Date().toISOString(),
    });
    return rows.every(([, , met]) => met !== 'NO') ? 0 : 1;
  } finally {
    agent.destroy();
    await child?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
