import { describe, expect, it } from 'vitest';
import { terminalProgress } from '../../src/cli/progress.js';

function fakeStream(isTTY: boolean, columns = 40) {
  const written: string[] = [];
  return { isTTY, columns, written, write: (text: string) => written.push(text) };
}

describe('progress', () => {
  it('rewrites one line on a terminal, at most every 100 ms, and clears it when done', () => {
    const stream = fakeStream(true);
    let t = 0;
    const p = terminalProgress({ stream, env: {}, now: () => t });
    p.show('copying incidents: 500 of 2000');
    t = 50;
    p.show('copying incidents: 1000 of 2000');
    t = 150;
    p.show('copying incidents: 1500 of 2000');
    p.done();
    expect(stream.written).toEqual(['\rcopying incidents: 500 of 2000\u001b[K', '\rcopying incidents: 1500 of 2000\u001b[K', '\r\u001b[K']);
  });

  it('cuts a line to the width of the terminal', () => {
    const stream = fakeStream(true, 20);
    terminalProgress({ stream, env: {} }).show('x'.repeat(50));
    expect(stream.written).toEqual([`\r${'x'.repeat(18)}…\u001b[K`]);
  });

  it('shows nothing in a pipe, nor under CI', () => {
    for (const [stream, env] of [
      [fakeStream(false), {}],
      [fakeStream(true), { CI: 'true' }],
    ] as const) {
      const p = terminalProgress({ stream, env });
      p.show('copying');
      p.follow(() => 'applying');
      p.done();
      expect(stream.written).toEqual([]);
    }
  });
});
