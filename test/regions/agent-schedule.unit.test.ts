import { describe, expect, it } from 'vitest';
import { createProbeAgent } from '../../src/agent/probe-agent.js';
import type { ServerLink } from '../../src/agent/server-link.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';
import type { ProbeClient, ProbeTarget } from '../../src/probes/probe-client.js';
import { waitUntil } from '../helpers/wait-until.js';

/** A server that assigns `count` ping monitors of `intervalSeconds` and takes every result. */
function assigning(count: number, intervalSeconds: number): ServerLink {
  const monitors = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    name: `m${i + 1}`,
    url: `http://127.0.0.1:9/${i + 1}`,
    probe_type: 'ping',
    keyword: null,
    interval_seconds: intervalSeconds,
    record: null,
    expect: null,
    dns_server: null,
    days_before_expiry: null,
  }));
  return {
    get: async () => ({ data: { region: 'eu', monitors } }),
    post: async () => ({}),
  } as unknown as ServerLink;
}

/** Probes that answer when `release` is called, recording which started and how many ran at once. */
function heldProbes(): ProbeClient & { started: string[]; mostAtOnce: number; release(): void } {
  let open = 0;
  let waiting: (() => void)[] = [];
  const client = {
    started: [] as string[],
    mostAtOnce: 0,
    release() {
      for (const done of waiting) done();
      waiting = [];
    },
    async probe(target: ProbeTarget) {
      client.started.push(target.url);
      client.mostAtOnce = Math.max(client.mostAtOnce, ++open);
      await new Promise<void>((resolve) => waiting.push(resolve));
      open--;
      return { ok: true as const };
    },
    close: async () => undefined,
  };
  return client;
}

describe("a probe agent's schedule", () => {
  it('spreads thousands of monitors over their interval instead of probing them all at its start', async () => {
    const client = heldProbes();
    const agent = createProbeAgent({ link: assigning(3_000, 60), client, region: 'eu', logger: silentLogger, tickMs: 20 });
    await agent.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      // A 60 s interval spreads 3,000 monitors over 60 phases: about 50 a second, not 3,000 at once.
      expect(client.started.length).toBeLessThan(300);
    } finally {
      client.release();
      await agent.stop();
    }
  });

  it('runs no more probes at once than its concurrency; the others wait their turn, still due', async () => {
    const client = heldProbes();
    const agent = createProbeAgent({ link: assigning(50, 1), client, region: 'eu', logger: silentLogger, tickMs: 10, concurrency: 3 });
    await agent.start();
    try {
      await waitUntil(() => client.started.length === 3, { what: 'three probes under way' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(client.started).toHaveLength(3);
      client.release();
      await waitUntil(() => client.started.length === 6, { what: 'the next three once those answered' });
      expect(client.mostAtOnce).toBe(3);
    } finally {
      client.release();
      await agent.stop();
    }
  });
});

describe('a probe agent whose answer was lost', () => {
  it('sends the batch again as the same results of the same run, so that the server records them once', async () => {
    const bodies: { run: string; results: { seq: number }[]; dropped_total: number }[] = [];
    const base = assigning(3, 1);
    let lost = false;
    const link = {
      ...base,
      post: async (_path: string, body: unknown) => {
        bodies.push(structuredClone(body) as (typeof bodies)[number]);
        // The server took the first batch, but its answer never came.
        if (!lost && (body as (typeof bodies)[number]).results.length > 0) {
          lost = true;
          throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        }
        return { data: { accepted: 0, repeated: 0 } };
      },
    } as ServerLink;
    const client = { probe: async () => ({ ok: true as const }), close: async () => undefined } as unknown as ProbeClient;
    const agent = createProbeAgent({ link, client, region: 'eu', logger: silentLogger, tickMs: 10, reportMs: 50 });
    await agent.start();
    try {
      await waitUntil(() => bodies.filter((b) => b.results.length > 0).length >= 2, { what: 'the batch sent again' });
    } finally {
      await agent.stop();
    }
    const [first, again] = bodies.filter((b) => b.results.length > 0) as [(typeof bodies)[number], (typeof bodies)[number]];
    expect(again.run).toBe(first.run);
    expect(again.run).toMatch(/^[0-9a-f-]{36}$/);
    const seqs = (b: (typeof bodies)[number]) => b.results.map((r) => r.seq);
    expect(seqs(again).slice(0, first.results.length)).toEqual(seqs(first));
    expect(seqs(first)).toEqual(Array.from({ length: first.results.length }, (_, i) => i + 1));
    // The run's drops so far go with every batch, so that the server counts each drop once.
    expect([first.dropped_total, again.dropped_total]).toEqual([0, 0]);
  });
});
