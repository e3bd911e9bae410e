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

/** The batch: one reused buffer, the whole lines waiting in it, and the line being written after them. */
interface Batch {
  readonly buffer: Buffer;
  readonly maxBytes: number;
  readonly flushMs: number;
  /** The file's descriptor; null for stdout. */
  readonly fd: number | null;
  /** Bytes of whole lines waiting. */
  used: number;
  /** Where the line being written has got to (from `used`); -1 when none is. */
  at: number;
  timer: NodeJS.Timeout | null;
}

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
  const maxBytes = options.maxBytes ?? 64 * 1024;
  let fd: number | null = null;
  if ('file' in target) {
    mkdirSync(dirname(target.file), { recursive: true });
    fd = openSync(target.file, 'a');
  }
  const batch: Batch = { buffer: Buffer.allocUnsafe(maxBytes), maxBytes, flushMs: options.flushMs ?? 100, fd, used: 0, at: -1, timer: null };
  const flush = (): void => flushBatch(batch);
  process.once('exit', flush);
  return {
    write: (line) => writeLine(batch, line),
    lines: createLineWriter(batch),
    flush,
  };
}

function send(batch: Batch, bytes: Uint8Array | string): void {
  // Both are synchronous for files and, on Linux, for pipes.
  if (batch.fd === null) process.stdout.write(bytes);
  else if (typeof bytes === 'string') writeSync(batch.fd, bytes);
  else writeSync(batch.fd, bytes); // (the two overloads of writeSync)
}

function flushBatch(batch: Batch): void {
  if (batch.timer) {
    clearTimeout(batch.timer);
    batch.timer = null;
  }
  const { buffer, used } = batch;
  if (used === 0) return;
  // stdout gets a copy, as the buffer is reused.
  send(batch, batch.fd === null ? Buffer.from(buffer.subarray(0, used)) : buffer.subarray(0, used));
  if (batch.at !== -1) {
    // The line being written moves to the front.
    buffer.copy(buffer, 0, used, batch.at);
    batch.at -= used;
  }
  batch.used = 0;
}

function due(batch: Batch): void {
  if (!batch.timer) {
    batch.timer = setTimeout(() => flushBatch(batch), batch.flushMs);
    batch.timer.unref();
  }
}

/** A whole line as a string. */
function writeLine(batch: Batch, line: string): boolean {
  // A UTF-16 unit is at most 3 bytes of UTF-8: room for the worst case, or the batch goes first.
  if (batch.used + line.length * 3 > batch.maxBytes) {
    flushBatch(batch);
    if (line.length * 3 > batch.maxBytes) {
      send(batch, line);
      return true;
    }
  }
  batch.used += batch.buffer.write(line, batch.used);
  due(batch);
  return true;
}

/** The line being written has room for `bytes` more, once the batch before it is written if need be. */
function room(batch: Batch, bytes: number): void {
  if (batch.at + bytes <= batch.maxBytes) return;
  flushBatch(batch);
  if (batch.at + bytes > batch.maxBytes) throw new LineTooLong();
}

function createLineWriter(batch: Batch): LineWriter {
  const { buffer } = batch;
  return {
    begin() {
      batch.at = batch.used;
    },
    raw(bytes) {
      room(batch, bytes.length);
      const length = bytes.length;
      const at = batch.at;
      for (let k = 0; k < length; k++) buffer[at + k] = bytes[k]!;
      batch.at = at + length;
    },
    text(value) {
      if (plain(batch, value)) return;
      const json = JSON.stringify(value);
      room(batch, json.length * 3);
      batch.at += buffer.write(json, batch.at);
    },
    number: (value) => writeNumber(batch, value),
    end() {
      batch.used = batch.at;
      batch.at = -1;
      due(batch);
    },
    abandon() {
      batch.at = -1;
    },
  };
}

/** A string that needs no escaping (printable ASCII without `"` or `\`), written byte by byte; false, and nothing written, for any other. */
function plain(batch: Batch, value: string): boolean {
  const length = value.length;
  room(batch, length + 2);
  const buffer = batch.buffer;
  let i = batch.at;
  buffer[i++] = QUOTE;
  for (let k = 0; k < length; k++) {
    const c = value.charCodeAt(k);
    if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) return false;
    buffer[i++] = c;
  }
  buffer[i++] = QUOTE;
  batch.at = i;
  return true;
}

/** A finite number as JSON (as `String` writes it). */
function writeNumber(batch: Batch, value: number): void {
  room(batch, 32);
  const buffer = batch.buffer;
  const magnitude = Math.abs(value);
  if (Number.isInteger(value) && magnitude <= Number.MAX_SAFE_INTEGER) {
    if (value < 0) buffer[batch.at++] = MINUS;
    digits(batch, magnitude);
    return;
  }
  // At most three decimals (a duration in ms, rounded to the µs): written from its integer thousandths, as a double's shortest text costs more.
  const thousandths = Math.round(magnitude * 1000);
  if (thousandths / 1000 !== magnitude || thousandths > Number.MAX_SAFE_INTEGER) {
    ascii(batch, String(value));
    return;
  }
  if (value < 0) buffer[batch.at++] = MINUS;
  const fraction = thousandths % 1000;
  digits(batch, (thousandths - fraction) / 1000);
  buffer[batch.at++] = DOT;
  buffer[batch.at++] = ZERO + Math.floor(fraction / 100);
  if (fraction % 100 === 0) return;
  buffer[batch.at++] = ZERO + (Math.floor(fraction / 10) % 10);
  if (fraction % 10 === 0) return;
  buffer[batch.at++] = ZERO + (fraction % 10);
}

/** Digits of an integer from 0 to 2^53. */
function digits(batch: Batch, n: number): void {
  let count = 1;
  for (let p = 10; p <= n; p *= 10) count++;
  let i = batch.at + count;
  batch.at = i;
  do {
    const rest = Math.floor(n / 10);
    batch.buffer[--i] = ZERO + (n - rest * 10);
    n = rest;
  } while (n > 0);
}

function ascii(batch: Batch, value: string): void {
  room(batch, value.length);
  for (let k = 0; k < value.length; k++) batch.buffer[batch.at++] = value.charCodeAt(k);
}
