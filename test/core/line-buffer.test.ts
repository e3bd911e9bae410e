import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLineBuffer } from '../../src/core/line-buffer.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function logFile(): string {
  dir = mkdtempSync(join(tmpdir(), 'statusbot-lines-'));
  return join(dir, 'logs', 'statusbot.log');
}

const read = (file: string) => readFileSync(file, 'utf8');

describe('log lines written in batches', () => {
  it('writes nothing until the batch is due, then every line in order', async () => {
    const file = logFile();
    const out = createLineBuffer({ file }, { flushMs: 30 });
    out.write('{"n":1}\n');
    out.write('{"n":2}\n');
    expect(read(file)).toBe('');
    await new Promise((ok) => setTimeout(ok, 80));
    expect(read(file)).toBe('{"n":1}\n{"n":2}\n');
  });

  it('writes the batch when it is full, and a line longer than the whole buffer on its own, in order', () => {
    const file = logFile();
    const out = createLineBuffer({ file }, { flushMs: 60_000, maxBytes: 64 });
    const lines = ['a'.repeat(15) + '\n', 'b'.repeat(15) + '\n', 'c'.repeat(100) + '\n', 'd\n'];
    for (const line of lines) out.write(line);
    expect(read(file)).toBe(lines.slice(0, 3).join(''));
    out.flush();
    expect(read(file)).toBe(lines.join(''));
  });

  it('keeps text of several bytes per character whole across batches', () => {
    const file = logFile();
    const out = createLineBuffer({ file }, { flushMs: 60_000, maxBytes: 48 });
    const lines = Array.from({ length: 20 }, (_, i) => `{"msg":"Störung ${i} — 障害 🚨"}\n`);
    for (const line of lines) out.write(line);
    out.flush();
    expect(read(file)).toBe(lines.join(''));
  });
});
