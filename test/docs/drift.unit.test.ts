import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STOP_DEADLINE_MS, STOP_GRACE_MS } from '../../src/stop-times.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('the docs agree with the files they describe', () => {
  it('docs/chat.md counts the places of YOUR-HOST in manifest.yml', () => {
    // Places to replace: the lines that are not comments (the first comment names it, too).
    const places = read('manifest.yml')
      .split('\n')
      .filter((l) => !l.trimStart().startsWith('#') && l.includes('YOUR-HOST')).length;
    expect(places).toBeGreaterThan(0);
    const said = /replace `YOUR-HOST` with the public host name of your\s+statusbot \((\w+) places\)/.exec(read('docs/chat.md'));
    expect(said?.[1]).toBe(WORDS[places]);
  });

  it('the systemd unit and docs/operations.md give the stop times the server keeps', () => {
    const grace = STOP_GRACE_MS / 1000;
    const deadline = STOP_DEADLINE_MS / 1000;
    const unit = read('examples/statusbot.service');
    const ops = read('docs/operations.md').replace(/\s+/g, ' ');
    const comment = unit
      .split('\n')
      .filter((l) => l.startsWith('#'))
      .join(' ')
      .replace(/#\s*/g, '')
      .replace(/\s+/g, ' ');
    expect(comment).toContain(
      `under way (requests, probes, feed reads, deliveries) ${grace} s to finish, then exits 0; a stop that takes over ${deadline} s ends with exit 1`,
    );
    expect(ops).toContain(`Work under way gets ${grace} seconds to finish`);
    expect(ops).toContain(`If the stop takes longer than ${deadline} seconds`);
    // Every number of seconds the unit's comments give is one the server keeps.
    expect([...comment.matchAll(/(\d+) s\b/g)].map((m) => Number(m[1])).sort()).toEqual([grace, deadline].sort());
    const stopSec = Number(/^TimeoutStopSec=(\d+)s$/m.exec(unit)?.[1]);
    expect(stopSec).toBeGreaterThan(deadline);
    expect(ops).toContain(`TimeoutStopSec=${stopSec}s\` kills it only after that`);
  });
});
