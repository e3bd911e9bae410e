import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The domain's folders stand in layers: model/ (the types and rules that
 * aggregates share) at the bottom, each aggregate on what it reads, the read
 * models of pages and digests (read/) on top. A folder never imports one that
 * imports it back, so each can be read knowing only what lies below it.
 */

const DOMAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/domain');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each domain file with the domain files it imports, as paths under src/domain. */
function domainImports(): Map<string, string[]> {
  const imports = new Map<string, string[]>();
  for (const file of sources(DOMAIN)) {
    const text = readFileSync(file, 'utf8');
    const named = [...text.matchAll(/\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)].map((m) => resolve(dirname(file), (m[1] ?? m[2])!));
    imports.set(
      relative(DOMAIN, file),
      named.filter((target) => target.startsWith(`${DOMAIN}/`)).map((target) => relative(DOMAIN, target).replace(/\.js$/, '.ts')),
    );
  }
  return imports;
}

/** A file's room: its top folder under src/domain (`incidents/`), or the file itself at the top. */
const roomOf = (path: string): string => (path.includes('/') ? `${path.split('/')[0]}/` : path);

/** The folder-level loops: rooms that reach themselves again through their imports, each with one import that closes it. */
function loops(imports: Map<string, string[]>): string[] {
  const arrows = new Map<string, Map<string, string>>();
  for (const [file, targets] of imports) {
    for (const target of targets) {
      const [from, to] = [roomOf(file), roomOf(target)];
      if (from === to) continue;
      if (!arrows.has(from)) arrows.set(from, new Map());
      arrows.get(from)!.set(to, `${file} -> ${target}`);
    }
  }
  const found: string[] = [];
  for (const [from, out] of arrows) {
    for (const [to, example] of out) {
      // Does `to` reach `from` again?
      const seen = new Set<string>([to]);
      const queue = [to];
      while (queue.length > 0) {
        const at = queue.shift()!;
        if (at === from) {
          found.push(example);
          break;
        }
        for (const next of arrows.get(at)?.keys() ?? []) {
          if (seen.has(next)) continue;
          seen.add(next);
          queue.push(next);
        }
      }
    }
  }
  return found;
}

describe('the domain layers', () => {
  const imports = domainImports();

  it('reads the files it checks', () => {
    expect(imports.get('read/pages/page-view.ts')).toContain('model/incident.ts');
    expect(
      loops(
        new Map([
          ['a/x.ts', ['b/y.ts']],
          ['b/y.ts', ['a/z.ts']],
        ]),
      ),
    ).toEqual(['a/x.ts -> b/y.ts', 'b/y.ts -> a/z.ts']);
  });

  it('keeps model/ at the bottom: it imports nothing of the domain but errors and the clock', () => {
    const below = new Set(['errors.ts', 'clock.ts']);
    const reaching = [...imports].flatMap(([file, targets]) =>
      file.startsWith('model/') ? targets.filter((t) => !t.startsWith('model/') && !below.has(t)).map((t) => `${file} -> ${t}`) : [],
    );
    expect(reaching).toEqual([]);
  });

  it('keeps read/ on top: no write code of the domain imports a read model', () => {
    const reading = [...imports].flatMap(([file, targets]) =>
      file.startsWith('read/') ? [] : targets.filter((t) => t.startsWith('read/')).map((t) => `${file} -> ${t}`),
    );
    expect(reading).toEqual([]);
  });

  it('has no folder that imports one importing it back', () => {
    expect(loops(imports)).toEqual([]);
  });
});
