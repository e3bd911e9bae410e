import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LineTooLong, createLineBuffer } from '../../src/infrastructure/line-buffer.js';

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
  it('writes nothing until the batch is due, then every line in order', () => {
    const file = logFile();
    vi.useFakeTimers();
    try {
      const out = createLineBuffer({ file }, { flushMs: 30 });
      out.write('{"n":1}\n');
      out.write('{"n":2}\n');
      vi.advanceTimersByTime(29);
      expect(read(file)).toBe('');
      vi.advanceTimersByTime(1);
      expect(read(file)).toBe('{"n":1}\n{"n":2}\n');
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes the batch when it is full, and a line longer than the whole buffer on its own, in order', () => {
    const file = logFile();
    const out = createLineBuffer({ file }, { flushMs: 60_000, maxBytes: 64 });
    const lines = [`${'a'.repeat(15)}\n`, `${'b'.repeat(15)}\n`, `${'c'.repeat(100)}\n`, 'd\n'];
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

describe('lines written piece by piece', () => {
  const bytes = (text: string) => Buffer.from(text);

  it('writes strings and numbers exactly as JSON.stringify does', () => {
    const file = logFile();
    const out = createLineBuffer({ file }, { flushMs: 60_000 });
    const texts = ['plain-id_1.2:3', '/api/v2/incidents/:id', '', 'say "hi"', 'back\\slash', 'tab\there\nnewline', 'Störung 障害 🚨', '\u0000\u001f\u007f'];
    const numbers = [0, -0, 7, -42, 1795550466613, 0.048, 0.05, 0.5, 12.25, -3.125, 1.001, 0.1 + 0.2, 1e-7, 123456.789, 1e21, Number.MAX_SAFE_INTEGER, 2 ** 60];
    const line = (value: () => void) => {
      out.lines.begin();
      out.lines.raw(bytes('{"v":'));
      value();
      out.lines.raw(bytes('}\n'));
      out.lines.end();
    };
    for (const value of texts) line(() => out.lines.text(value));
    for (const value of numbers) line(() => out.lines.number(value));
    out.flush();
    const expected = [...texts, ...numbers].map((v) => `${JSON.stringify({ v })}\n`).join('');
    expect(read(file)).toBe(expected);
  });

  it('keeps a line whole when the batch fills up in its middle, in order with lines written as strings', () => {
    const file = logFile();
    const out = createLineBuffer({ file }, { flushMs: 60_000, maxBytes: 64 });
    const expected: string[] = [];
    for (let i = 0; i < 20; i++) {
      out.lines.begin();
      out.lines.raw(bytes('{"n":'));
      out.lines.number(i);
      out.lines.raw(bytes(',"id":'));
      out.lines.text(`request-${i}-${'x'.repeat(i)}`);
      out.lines.raw(bytes('}\n'));
      out.lines.end();
      expected.push(`{"n":${i},"id":"request-${i}-${'x'.repeat(i)}"}\n`);
      out.write(`{"s":${i}}\n`);
      expected.push(`{"s":${i}}\n`);
    }
    out.flush();
    expect(read(file)).toBe(expected.join(''));
  });

  it('takes an abandoned line back, and refuses a line longer than the whole buffer', () => {
    const file = logFile();
    const out = createLineBuffer({ file }, { flushMs: 60_000, maxBytes: 64 });
    out.lines.begin();
    out.lines.raw(bytes('{"half":'));
    out.lines.abandon();
    out.lines.begin();
    out.lines.raw(bytes('{"long":'));
    expect(() => out.lines.text('y'.repeat(100))).toThrow(LineTooLong);
    out.lines.abandon();
    out.write('{"after":1}\n');
    out.flush();
    expect(read(file)).toBe('{"after":1}\n');
  });
});
