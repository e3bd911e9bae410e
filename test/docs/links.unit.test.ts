import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationPages } from '../helpers/docs.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a page's headings (outside code blocks). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]!));
  }
  return anchors;
}

describe('the documentation', () => {
  const pages = documentationPages();

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const [page, text] of pages) {
      const prose = text.replace(/```[\s\S]*?```/g, '');
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [file, anchor] = target!.split('#');
        const path = file ? normalize(join(dirname(page), file)) : page;
        if (!existsSync(join(ROOT, path))) broken.push(`${page}: ${target} (no file ${path})`);
        else if (anchor && path.endsWith('.md') && !anchorsOf(pages.get(path) ?? '').has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the README short, with every docs page linked from it', () => {
    const readme = pages.get('README.md')!;
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    for (const page of pages.keys()) if (page !== 'README.md') expect(readme, page).toContain(`](${page})`);
  });
});
