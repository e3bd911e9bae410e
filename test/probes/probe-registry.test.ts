import { describe, expect, it } from 'vitest';
import { PROBE_TYPES } from '../../src/domain/monitors/monitor.js';
import { PROBE_KINDS, isProbed } from '../../src/probes/probe-kinds.js';
import { checkedValues, configEnum } from '../helpers/declared-kinds.js';

const registered = Object.keys(PROBE_KINDS).sort();

describe('the registry of probe kinds', () => {
  it('has one entry for every probe type the config and the database accept, and no other', async () => {
    expect(registered).toEqual(configEnum(['companies', 'custom_monitors', 'probe_type']));
    expect(registered).toEqual(await checkedValues('custom_monitors', 'probe_type'));
    expect(registered).toEqual([...PROBE_TYPES].sort());
  });

  it('holds each kind under its name, from a file of its name that exports only it', async () => {
    for (const [kind, entry] of Object.entries(PROBE_KINDS)) {
      expect(entry.kind).toBe(kind);
      const file = (await import(/* @vite-ignore */ new URL(`../../src/probes/${kind}.ts`, import.meta.url).pathname)) as Record<string, unknown>;
      expect(Object.keys(file)).toEqual([kind]);
      expect(file[kind]).toBe(entry);
    }
  });

  it('probes every kind from a region but heartbeats, which are pushed', () => {
    expect(PROBE_TYPES.filter((type) => !isProbed(type))).toEqual(['heartbeat']);
  });
});
