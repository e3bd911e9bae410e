import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';

/** Every folder under `top`, as `top/a/b/`. */
function folders(top: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    found.push(`${relative}/`);
    for (const entry of readdirSync(join(ROOT, relative), { withFileTypes: true })) if (entry.isDirectory()) walk(`${relative}/${entry.name}`);
  };
  walk(top);
  return found;
}

describe('docs/architecture.md', () => {
  it('describes every folder of src/, adapters/ and migrations/ by its whole path', () => {
    const page = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const named = new Set([...page.matchAll(/`([\w./-]+\/)`/g)].map((m) => m[1]!));
    const missing = ['src', 'adapters', 'migrations'].flatMap(folders).filter((folder) => !named.has(folder));
    expect(missing, 'folders without a line in docs/architecture.md').toEqual([]);
  });
});
