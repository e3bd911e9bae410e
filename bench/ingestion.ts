/**
 * The ingestion benchmark (part of `npm run bench`): statusbot reads N watched
 * vendors' Statuspage feeds (default 2,000) at a 60 s interval from a local
 * fake serving realistic payloads (about 30 KB per vendor: GitHub's summary and
 * incidents documents), half of which change every minute while the other half
 * stay the same (answered 304). Reports the CPU statusbot used (in cores), its
 * peak RSS, and the staleness of changes: from the moment the fake changed a
 * vendor's page to the moment statusbot's API shows the new status.
 *
 * Environment: BENCH_VENDORS (default 2000), BENCH_INGEST_SECONDS (measured window, default 150),
 * BENCH_INGEST_WARMUP_SECONDS (default 75: one full round of first reads).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordResult } from './results.js';
import { startServingChild } from './serving-child.js';

const VENDORS = Number(process.env.BENCH_VENDORS ?? 2_000);
const SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 150);
const WARMUP = Number(process.env.BENCH_INGEST_WARMUP_SECONDS ?? 75);
const INTERVAL_S = 60;
const TARGETS = { cores: 0.3, rssMb: 250, stalenessP99S: INTERVAL_S + 10 };

const here = fileURLToPath(new URL('.', import.meta.url));
// Run from dist/bench: the captured payloads are in the source tree.
const FIXTURES = resolve(here, '../../test/fixtures/status-feeds');

/** A vendor's two documents at one version: the version decides its indicator and whether an incident is open. */
function documents(base: { summary: any; incidents: any }, vendor: number, version: number) {
  const now = new Date().toISOString();
  const open = version % 2 === 1;
  const summary = structuredClone(base.summary);
  summary.page = { ...summary.page, id: `v${vendor}`, name: `Vendor ${vendor}`, updated_at: now };
  summary.status = open ? { indicator: 'major', description: 'Partial System Outage' } : { indicator: 'none', description: 'All Systems Operational' };
  const incidents = structuredClone(base.incidents);
  if (open) {
    const incident = structuredClone(incidents.incidents[0]);
    incident.id = `v${vendor}-i${version}`;
    incident.name = `Outage ${version} of vendor ${vendor}`;
    incident.status = 'investigating';
    incident.impact = 'major';
    incident.resolved_at = null;
    incident.created_at = now;
    incident.updated_at = now;
    incident.incident_updates = [
      { ...incident.incident_updates.at(-1), id: `u${version}`, status: 'investigating', body: 'Looking into it', created_at: now, updated_at: now },
    ];
    summary.incidents = [incident];
    incidents.incidents = [incident, ...incidents.incidents.slice(0, 4)];
  }
  return { summary: JSON.stringify(summary), incidents: JSON.stringify(incidents), indicator: open ? 'major' : 'ok' };
}

async function main(): Promise<number> {
  const base = {
    summary: JSON.parse(readFileSync(join(FIXTURES, 'statuspage-github-summary.json'), 'utf8')),
    incidents: JSON.parse(readFileSync(join(FIXTURES, 'statuspage-github-incidents.json'), 'utf8')),
  };
  // Recent dates, so that the incidents lie within the 30-day window as on a live page.
  const shift = (doc: any) => JSON.parse(JSON.stringify(doc).replace(/20\d\d-\d\d-\d\dT/g, `${new Date().toISOString().slice(0, 11)}`));
  base.incidents = shift(base.incidents);
  // About 30 KB per vendor, as a typical page: the summary (4 KB) and five incidents with up to 8 updates each.
  for (const incident of base.incidents.incidents) incident.incident_updates = incident.incident_updates.slice(0, 8);

  // Per vendor: its current version, when that version appeared, and whether statusbot has been served it yet.
  const versions = new Map<number, { version: number; changedAt: number; served: boolean; docs: ReturnType<typeof documents>; etags: string[] }>();
  const set = (vendor: number, version: number) => {
    const docs = documents(base, vendor, version);
    const etags = [docs.summary, docs.incidents].map((d) => `"${createHash('sha1').update(d).digest('hex')}"`);
    versions.set(vendor, { version, changedAt: Date.now(), served: false, docs, etags });
  };
  for (let v = 1; v <= VENDORS; v++) set(v, 0);
  const staleness: number[] = [];
  let measuring = false;
  let bytes = 0;
  const counts = { ok: 0, notModified: 0 };

  const fake = createServer((req, res) => {
    const m = /^\/v(\d+)\/api\/v2\/(summary|incidents)\.json$/.exec(req.url ?? '');
    const state = m ? versions.get(Number(m[1])) : undefined;
    if (!m || !state) {
      res.writeHead(404);
      res.end();
      return;
    }
    const which = m[2] === 'summary' ? 0 : 1;
    const etag = state.etags[which]!;
    if (req.headers['if-none-match'] === etag) {
      counts.notModified++;
      res.writeHead(304, { etag });
      res.end();
      return;
    }
    const body = which === 0 ? state.docs.summary : state.docs.incidents;
    counts.ok++;
    bytes += body.length;
    if (which === 0 && !state.served) {
      state.served = true;
      if (measuring && state.version > 0) staleness.push(Date.now() - state.changedAt);
    }
    res.writeHead(200, { 'content-type': 'application/json', etag, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const port = (fake.address() as AddressInfo).port;

  const dir = mkdtempSync(join(tmpdir(), 'statusbot-ingest-bench-'));
  const lines = [
    'rate_limit: { per_minute: 100000 }',
    `ingestion: { interval_seconds: ${INTERVAL_S}, timeout_seconds: 10, concurrency: 50 }`,
    'jobs: { monitors: { enabled: false }, digests: { enabled: false } }',
    'services:',
  ];
  for (let v = 1; v <= VENDORS; v++) {
    lines.push(`  - { urlname: v${v}, name: Vendor ${v}, feed: { kind: statuspage, url: "http://127.0.0.1:${port}/v${v}" }, poll: always }`);
  }
  lines.push('companies:', '  - name: Bench', '    api_keys: ["bench-key-0123456789"]');
  const configPath = join(dir, 'statusbot.yml');
  writeFileSync(configPath, `${lines.join('\n')}\n`);

  let child: Awaited<ReturnType<typeof startServingChild>> | undefined;
  let changer: NodeJS.Timeout | undefined;
  try {
    child = await startServingChild(join(dir, 'statusbot.db'), configPath);
    console.log(`ingestion bench: ${VENDORS} Statuspage feeds every ${INTERVAL_S} s, half changing each minute; ${WARMUP} s warm-up, ${SECONDS} s measured`);
    await new Promise((r) => setTimeout(r, WARMUP * 1000));

    // Each second, 1/60 of the changing half moves to its next version: half of the vendors change every minute.
    let next = 0;
    const changing = Math.floor(VENDORS / 2);
    changer = setInterval(() => {
      const per = Math.ceil(changing / 60);
      for (let k = 0; k < per; k++) {
        const vendor = (next++ % changing) * 2 + 1;
        set(vendor, versions.get(vendor)!.version + 1);
      }
    }, 1000);
    measuring = true;
    const start = await child.mark();
    const t0 = process.hrtime.bigint();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const end = await child.mark();
    measuring = false;
    const wallMicros = Number(process.hrtime.bigint() - t0) / 1000;

    // Checked through the API: a sample of changed vendors shows the status of the version last served.
    let agree = 0;
    let sampled = 0;
    for (let vendor = 1; vendor <= VENDORS && sampled < 50; vendor += 40) {
      const state = versions.get(vendor)!;
      if (!state.served) continue;
      sampled++;
      const res = await fetch(`http://127.0.0.1:${child.port}/api/v2/services/v${vendor}`, { headers: { authorization: 'Bearer bench-key-0123456789' } });
      const body = (await res.json()) as { data: { attributes: { status: string } } };
      if (body.data.attributes.status === state.docs.indicator) agree++;
    }

    staleness.sort((a, b) => a - b);
    const p = (q: number) => (staleness.length ? staleness[Math.min(staleness.length - 1, Math.floor(q * staleness.length))]! / 1000 : NaN);
    const cores = (end.cpuMicros - start.cpuMicros) / wallMicros;
    const rssMb = end.maxRssKb / 1024;
    const rows: [string, string, string][] = [
      ['changes served and measured', `${staleness.length}`, ''],
      ['staleness p50 / p99', `${p(0.5).toFixed(1)} s / ${p(0.99).toFixed(1)} s`, p(0.99) < TARGETS.stalenessP99S ? 'yes' : 'NO'],
      ['API agrees with the page', `${agree} of ${sampled} sampled`, agree === sampled ? 'yes' : 'NO'],
      ['statusbot CPU', `${cores.toFixed(3)} cores`, cores < TARGETS.cores ? 'yes' : 'NO'],
      ['statusbot peak RSS', `${rssMb.toFixed(1)} MB`, rssMb < TARGETS.rssMb ? 'yes' : 'NO'],
      ['answers 200 / 304', `${counts.ok} / ${counts.notModified}`, ''],
      ['bytes served', `${(bytes / 1024 / 1024).toFixed(1)} MiB`, ''],
    ];
    console.log();
    for (const [what, value, met] of rows) console.log(`${what.padEnd(30)} ${value.padStart(26)}  ${met}`);

    recordResult('ingestion', {
      vendors: VENDORS,
      seconds: SECONDS,
      cores,
      peakRssMb: rssMb,
      stalenessP50S: p(0.5),
      stalenessP99S: p(0.99),
      measured: staleness.length,
      ok: counts.ok,
      notModified: counts.notModified,
      date: new Date().toISOString(),
    });
    return rows.every(([, , met]) => met !== 'NO') ? 0 : 1;
  } finally {
    clearInterval(changer);
    await child?.stop();
    fake.close();
    fake.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
