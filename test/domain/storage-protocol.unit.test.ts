import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The domain writes with kysely and speaks no protocol of the storage
 * beneath it: which writes other processes hear of, what a cache of keys
 * is remembered under, or how the writer runs its transactions is src/db's
 * to know (from the tables a write touches, declared there once).
 */

const DOMAIN = fileURLToPath(new URL('../../src/domain/', import.meta.url));
const PROTOCOL = /\b(changesNothingCached|keysMarker|engineOf|runWrites|lockedRead|insertAtCommit)\b/g;

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The names of the storage's protocol that `source` mentions. */
const protocolNames = (source: string): string[] => [...source.matchAll(PROTOCOL)].map((m) => m[1]!);

describe('the domain', () => {
  it("mentions none of the storage's protocol (which writes are told to others, keys markers, the writer's engine)", () => {
    const files = filesUnder(DOMAIN);
    expect(files.length).toBeGreaterThan(10);
    const mentions = files.flatMap((f) => protocolNames(readFileSync(f, 'utf8')).map((name) => `${f.slice(DOMAIN.length)}: ${name}`));
    expect(mentions).toEqual([]);
  });

  it('is told apart by the check above', () => {
    expect(protocolNames("import { changesNothingCached } from '../../db/dialect.js';")).toEqual(['changesNothingCached']);
    expect(protocolNames('const epoch = keysMarker(ctx.db);')).toEqual(['keysMarker']);
    expect(protocolNames("import { changeMarker } from '../../db/dialect.js';")).toEqual([]);
  });
});
