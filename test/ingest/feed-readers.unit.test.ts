import { describe, expect, it } from 'vitest';
import { VENDOR_CATALOG } from '../../src/config/vendor-catalog.js';
import { FEED_KINDS } from '../../src/domain/vendors/vendor-snapshot.js';
import { FEED_READERS } from '../../src/ingest/feed-readers.js';
import { configEnum } from '../helpers/declared-kinds.js';

const registered = Object.keys(FEED_READERS).sort();

describe('the registry of feed readers', () => {
  it('has one reader for every feed kind the config accepts, and no other', () => {
    expect(registered).toEqual(configEnum(['services', 'feed', 'kind']));
    expect(registered).toEqual([...FEED_KINDS].sort());
  });

  it('has a reader for the feed of every vendor in the catalog', () => {
    for (const vendor of VENDOR_CATALOG) expect(registered, vendor.urlname).toContain(vendor.feed.kind);
  });

  it('holds each reader under its kind, from a file of its name that exports only it', async () => {
    for (const [kind, reader] of Object.entries(FEED_READERS)) {
      expect(reader.kind).toBe(kind);
      const file = (await import(/* @vite-ignore */ new URL(`../../src/ingest/${kind}.ts`, import.meta.url).pathname)) as Record<string, unknown>;
      expect(Object.keys(file)).toEqual([kind]);
      expect(file[kind]).toBe(reader);
    }
  });
});
