import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** The folders of src/ that each file under `folder` imports, by relative import. */
function importedFolders(folder: string): { file: string; folder: string }[] {
  const found: { file: string; folder: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name)) {
        for (const [, target] of readFileSync(path, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
          const top = relative(SRC, join(dir, target!)).split('/')[0]!;
          found.push({ file: relative(SRC, path), folder: top });
        }
      }
    }
  };
  walk(join(SRC, folder));
  return found;
}

const offending = (folder: string, above: readonly string[]) =>
  importedFolders(folder)
    .filter((i) => above.includes(i.folder))
    .map((i) => `${i.file} imports ${i.folder}/`);

describe('imports run downward', () => {
  it('config reads nothing of what it configures: jobs, delivery, ingest, probes, the fronts', () => {
    expect(offending('config', ['jobs', 'delivery', 'ingest', 'probes', 'agent', 'http', 'cli', 'metrics'])).toEqual([]);
  });

  it('delivery renders mail without the HTTP front, and probes run without the jobs', () => {
    expect(offending('delivery', ['http', 'jobs', 'cli'])).toEqual([]);
    expect(offending('probes', ['jobs', 'agent', 'http', 'cli'])).toEqual([]);
    expect(offending('markup', ['http', 'delivery'])).toEqual([]);
  });
});
