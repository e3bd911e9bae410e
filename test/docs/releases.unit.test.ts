import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../cli/run-cli.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const { version } = JSON.parse(read('package.json')) as { version: string };
/** The released versions the changelog has a section for, newest first. */
const released = [...read('CHANGELOG.md').matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)].map((m) => ({ version: m[1]!, date: m[2]! }));

describe('the version', () => {
  it('of package.json is the newest section of the changelog, which has a section per release, newest first', () => {
    expect(released.length).toBeGreaterThanOrEqual(2);
    expect(released[0]!.version).toBe(version);
    const order = (v: string) => v.split('.').map(Number);
    for (let i = 1; i < released.length; i++) {
      const [newer, older] = [order(released[i - 1]!.version), order(released[i]!.version)];
      expect(newer[0]! * 1e6 + newer[1]! * 1e3 + newer[2]!).toBeGreaterThan(older[0]! * 1e6 + older[1]! * 1e3 + older[2]!);
      expect(released[i - 1]!.date >= released[i]!.date).toBe(true);
    }
    // Nothing in the changelog waits for a version: what is done is in the one package.json names.
    expect(read('CHANGELOG.md')).not.toMatch(/^## \[Unreleased\]/m);
  });

  it('has upgrade notes in the operations docs from each release to the next', () => {
    const operations = read('docs/operations.md');
    for (let i = 1; i < released.length; i++) {
      const [from, to] = [released[i]!.version, released[i - 1]!.version];
      expect(operations, `upgrade notes from ${from} to ${to}`).toMatch(
        new RegExp(`^### From ${from.replaceAll('.', '\\.')} to ${to.replaceAll('.', '\\.')}$`, 'm'),
      );
    }
  });

  it("is the Helm chart's appVersion, and the package the install docs name", () => {
    const chart = parse(read('deploy/helm/statusbot/Chart.yaml')) as { appVersion: string };
    expect(chart.appVersion).toBe(version);
    const operations = read('docs/operations.md');
    expect([...operations.matchAll(/npm install -g .*\.\/statusbot-(\d+\.\d+\.\d+)\.tgz/g)].map((m) => m[1])).toContain(version);
    for (const [, named] of operations.matchAll(/statusbot-(\d+\.\d+\.\d+)\.tgz/g)) expect(released.map((r) => r.version)).toContain(named);
  });
});
