import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sourceCommit, versionLine } from '../../src/cli/build-info.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], { encoding: 'utf8' }).trim();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-build-info-'));
  git('init', '-q');
  writeFileSync(join(dir, 'package.json'), '{"version":"1.2.3"}\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the commit a build records', () => {
  it("is the checkout's HEAD, and says when the sources differ from it", () => {
    const head = git('rev-parse', 'HEAD');
    expect(sourceCommit(dir, {})).toEqual({ commit: head, modified: false });
    writeFileSync(join(dir, 'package.json'), '{"version":"1.2.4"}\n');
    expect(sourceCommit(dir, {})).toEqual({ commit: head, modified: true });
  });

  it('is the one given in STATUSBOT_BUILD_COMMIT (an image built without .git), and only a full commit id', () => {
    const given = 'A'.repeat(40);
    expect(sourceCommit(dir, { STATUSBOT_BUILD_COMMIT: given })).toEqual({ commit: 'a'.repeat(40), modified: false });
    expect(sourceCommit(dir, { STATUSBOT_BUILD_COMMIT: 'unknown' })).toEqual({ commit: git('rev-parse', 'HEAD'), modified: false });
  });

  it("is unknown for a package inside another project's repository, never that project's commit", () => {
    const inner = join(dir, 'node_modules', 'statusbot');
    mkdirSync(inner, { recursive: true });
    expect(sourceCommit(inner, {})).toEqual({ commit: null, modified: false });
  });
});

describe('statusbot --version', () => {
  it('prints the version and the commit in full on one line', () => {
    const commit = '4c1f'.repeat(10);
    expect(versionLine({ version: '0.3.0', commit, modified: false })).toBe(`statusbot 0.3.0 (commit ${commit})`);
    expect(versionLine({ version: '0.3.0', commit, modified: true })).toBe(`statusbot 0.3.0 (commit ${commit}, with changes not committed)`);
    expect(versionLine({ version: '0.3.0', commit: null, modified: false })).toBe('statusbot 0.3.0 (commit unknown)');
  });
});
