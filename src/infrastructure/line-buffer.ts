import { mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Where log lines go, written in batches: pino's destination interface, a line writer of its own, and a way to write what waits. */
export interface LineBuffer {
  write(line: string): boolean;
  /** Writes one line into the batch piece by piece, without making it a string first (see LineWriter). */
  readonly lines: LineWriter;
  /** Writes the lines waiting, now. */
  flush(): void;
}

/**
 * One JSON line written piece by piece straight into the batch's bytes:
 * `begin`, pieces, `end`; or `abandon` to take the line back. No string is
 * made of the line: a line built as a string first costs its pieces, the
 * whole, its encoding and their garbage.
 */
export interface LineWriter {
  begin(): void;
  /** Bytes known to be JSON already (a field's `,"name":`, a message's end of line). */
  raw(bytes: Uint8Array): void;
  /** A string as JSON, quoted and escaped. */
  text(value: string): void;
  /** A finite number as JSON (as `String` writes it). */
  number(value: number): void;
  /** Ends the line (its last byte, a newline, among the pieces). Any piece may throw LineTooLong. */
  end(): void;
  abandon(): void;
}

/** A line written piece by piece outgrew the whole buffer: the caller abandons it and writes it as a string. */
export class LineTooLong extends Error {
  constructor() {
    super('a log line longer than the whole buffer');
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const DOT = 0x2e;
const MINUS = 0x2d;
const ZERO = 0x30;

/**
 * Log lines kept in memory and written together: every `flushMs`, at
 * `maxBytes`, when asked, and when the process exits: a write per line costs
 * a noticeable share of a cached API read, a batch one system call. Each line
 * is written into one reused buffer as it comes, so that no line outlives its
 * request on the heap: lines kept as strings for a batch's time were copied by
 * every young-generation collection, which cost more than building them. A process killed outright
 * loses at most the last `flushMs` of lines.
 */
export function createLineBuffer(target: { stdout: true } | { file: string }, options: { flushMs?: number; maxBytes?: number } = {}): LineBuffer {
  const flushMs = options.flushMs ?? 100;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  let fd: number | null = null;
  if ('file' in target) {
    mkdirSync(dirname(target.file), { recursive: true });
    fd = openSync(target.file, 'a');
  }
  const buffer = Buffer.allocUnsafe(maxBytes);
  /** Bytes of whole lines waiting. */
  let used = 0;
  /** Where the line being written has got to (from `used`); -1 when none is. */
  let at = -1;
  let timer: NodeJS.Timeout | null = null;

  function send(bytes: Uint8Array | string): void {
    // Both are synchronous for files and, on Linux, for pipes.
    if (fd === null) process.stdout.write(bytes);
    else if (typeof bytes === 'string') writeSync(fd, bytes);
    else writeSync(fd, bytes); // (the two overloads of writeSync)
  }

  function flush(): void {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (used === 0) return;
    // stdout gets a copy, as the buffer is reused.
    send(fd === null ? Buffer.from(buffer.subarray(0, used)) : buffer.subarray(0, used));
    if (at !== -1) {
      // The line being written moves to the front.
      buffer.copy(buffer, 0, used, at);
      at -= used;
    }
    used = 0;
  }

  function due(): void {
    if (!timer) {
      timer = setTimeout(flush, flushMs);
      timer.unref();
    }
  }

  /** The line being written has room for `bytes` more, once the batch before it is written if need be. */
  function room(bytes: number): void {
    if (at + bytes <= maxBytes) return;
    flush();
    if (at + bytes > maxBytes) throw new LineTooLong();
  }

  /** A string that needs no escaping (printable ASCII without `"` or `\`), written byte by byte; false, and nothing written, for any other. */
  function plain(value: string): boolean {
    const length = value.length;
    room(length + 2);
    let i = at;
    buffer[i++] = QUOTE;
    for (let k = 0; k < length; k++) {
      const c = value.charCodeAt(k);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) return false;
      buffer[i++] = c;
    }
    buffer[i++] = QUOTE;
    at = i;
    return true;
  }

  /** Digits of an integer from 0 to 2^53. */
  function digits(n: number): void {
    let count = 1;
    for (let p = 10; p <= n; p *= 10) count++;
    let i = at + count;
    at = i;
    do {
      const rest = Math.floor(n / 10);
      buffer[--i] = ZERO + (n - rest * 10);
      n = rest;
    } while (n > 0);
  }

  function ascii(value: string): void {
    room(value.length);
    for (let k = 0; k < value.length; k++) buffer[at++] = value.charCodeAt(k);
  }

  const lines: LineWriter = {
    begin() {
      at = used;
    },
    raw(bytes) {
      room(bytes.length);
      const length = bytes.length;
      for (let k = 0; k < length; k++) buffer[at + k] = bytes[k]!;
      at += length;
    },
    text(value) {
      if (plain(value)) return;
      const json = JSON.stringify(value);
      room(json.length * 3);
      at += buffer.write(json, at);
    },
    number(value) {
      room(32);
      const magnitude = Math.abs(value);
      if (Number.isInteger(value) && magnitude <= Number.MAX_SAFE_INTEGER) {
        if (value < 0) buffer[at++] = MINUS;
        return digits(magnitude);
      }
      // At most three decimals (a duration in ms, rounded to the µs): written from its integer thousandths, as a double's shortest text costs more.
      const thousandths = Math.round(magnitude * 1000);
      if (thousandths / 1000 !== magnitude || thousandths > Number.MAX_SAFE_INTEGER) return ascii(String(value));
      if (value < 0) buffer[at++] = MINUS;
      const fraction = thousandths % 1000;
      digits((thousandths - fraction) / 1000);
      buffer[at++] = DOT;
      buffer[at++] = ZERO + Math.floor(fraction / 100);
      if (fraction % 100 === 0) return;
      buffer[at++] = ZERO + (Math.floor(fraction / 10) % 10);
      if (fraction % 10 === 0) return;
      buffer[at++] = ZERO + (fraction % 10);
    },
    end() {
      used = at;
      at = -1;
      due();
    },
    abandon() {
      at = -1;
    },
  };

  process.once('exit', flush);
  return {
    write(line) {
      // A UTF-16 unit is at most 3 bytes of UTF-8: room for the worst case, or the batch goes first.
      if (used + line.length * 3 > maxBytes) {
        flush();
        if (line.length * 3 > maxBytes) {
          send(line);
          return true;
        }
      }
      used += buffer.write(line, used);
      due();
      return true;
    },
    lines,
    flush,
  };
}
