import { pino } from 'pino';
import type { DestinationStream, Logger as Pino } from 'pino';
import pretty from 'pino-pretty';
import { LineTooLong, createLineBuffer } from './line-buffer.js';
import type { LineBuffer } from './line-buffer.js';
import type { LogFields, Logger } from './logger.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Field names (compared in lower case) whose values never reach a log line, at any depth. */
const SECRET_FIELDS = new Set(['authorization', 'cookie', 'key', 'api_key', 'apikey', 'token', 'secret', 'password', 'signingsecret', 'bottoken']);
const REDACTED = '[redacted]';
const MAX_DEPTH = 6;

/**
 * The record's fields with every secret field's value replaced, at any depth;
 * the same object when there is none (the common case costs a look at each key).
 * pino's own `redact` with wildcard paths cost 5–7 times a plain line.
 */
function redactFields<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || value instanceof Error) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    value.forEach((item, i) => {
      const clean = redactFields(item, depth + 1);
      if (clean !== item) {
        copy ??= [...value];
        copy[i] = clean;
      }
    });
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | null = null;
  const record = value as Record<string, unknown>;
  for (const field in record) {
    const item = record[field];
    const clean = SECRET_FIELDS.has(field.toLowerCase()) ? REDACTED : typeof item === 'object' ? redactFields(item, depth + 1) : item;
    if (clean !== item) {
      copy ??= { ...record };
      copy[field] = clean;
    }
  }
  return (copy ?? value) as T;
}

/**
 * Secrets that may sit inside a message or an error's text (a library that
 * quotes a URL or a header): API keys, bearer tokens, Slack and Discord
 * tokens, passwords in URLs.
 */
const SECRET_TEXT: [RegExp, string][] = [
  [/\bsb_[A-Za-z0-9_-]{16,}/g, 'sb_[redacted]'],
  [/\b(Bearer|Bot)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]'],
  [/\bxox[a-z]-[A-Za-z0-9-]+/g, 'xox?-[redacted]'],
  [/\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}/g, '[redacted token]'],
  [/(\/\/[^:/@\s]+:)[^@\s/]+@/g, '$1[redacted]@'],
];

/** Cheap test first: most messages hold none of the shapes above. */
const MAY_HOLD_SECRET = /sb_|bearer|bot\s|xox|\.[A-Za-z0-9_-]{6}\.|\/\/[^\s]*@/i;

export function scrubSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement);
  return out;
}

function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? scrubSecrets(error) : error;
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  return {
    type: error.name,
    message: scrubSecrets(error.message),
    ...(code !== undefined ? { code } : {}),
    stack: error.stack ? scrubSecrets(error.stack) : undefined,
    ...(cause !== undefined ? { cause: serializeError(cause) } : {}),
  };
}

export interface LoggerOptions {
  /** LOG_LEVEL; `info` when not given. */
  level?: LogLevel;
  /** Where records go (default: stdout, in batches: see line-buffer.ts). */
  destination?: DestinationStream;
  /** A file to append records to instead, in batches. */
  file?: string;
  /** Human-readable lines instead of JSON (default: when stdout is a terminal). */
  pretty?: boolean;
}

/** The level LOG_LEVEL names; a clear error for a level that does not exist. */
export function logLevelOf(value: string | undefined): LogLevel {
  if (value === undefined || value === '') return 'info';
  const level = value.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${value}"`);
  }
  return level as LogLevel;
}

/** Logs as JSON lines with pino (one object per record, `time` in epoch ms), or readable lines on a terminal. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const toStdout = options.destination === undefined && options.file === undefined;
  const readable = options.pretty ?? (toStdout && process.stdout.isTTY === true);
  const buffered =
    options.destination === undefined && !readable ? createLineBuffer(options.file === undefined ? { stdout: true } : { file: options.file }) : null;
  const destination = options.destination ?? buffered ?? pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  const root = pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      formatters: { log: (fields) => redactFields(fields) },
      serializers: { err: serializeError },
      hooks: {
        // The message is text a caller built: secrets in it are scrubbed too.
        logMethod(args, method) {
          const last = args.length - 1;
          if (typeof args[last] === 'string') args[last] = scrubSecrets(args[last]);
          method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
  const logger = wrap(root);
  const info = buffered ? flatLines(root, buffered, logger.info) : logger.info;
  return { ...logger, info, flush: () => buffered?.flush() };
}

const INFO = 30;

/**
 * `info` for a record whose fields are all flat values (a request's line, a
 * job's): the same JSON line pino writes, written piece by piece straight into
 * the batch (see LineWriter), with no string made of it: pino's general path
 * costs a large share of a cached API read.
 * Each field name's JSON, each message's and the time's are made once (the
 * time once a millisecond). Anything else takes pino's path.
 */
function flatLines(root: Pino, out: LineBuffer, slow: Logger['info']): Logger['info'] {
  // Every piece as a Buffer (one kind of array for the line writer to copy from).
  const bytesOf = (text: string): Uint8Array => Buffer.from(text);
  // Each field name's `,"name":` once, with the redacted value for a secret field: a line looks at each name once, not at its lower case.
  const keys = new Map<string, { bytes: Uint8Array; secret: boolean }>();
  const keyOf = (field: string) => {
    let key = keys.get(field);
    if (key === undefined) {
      const secret = SECRET_FIELDS.has(field.toLowerCase());
      key = { bytes: bytesOf(`,${JSON.stringify(field)}:${secret ? `"${REDACTED}"` : ''}`), secret };
      if (keys.size < 1000) keys.set(field, key);
    }
    return key;
  };
  // Each message's end of line, scrubbed once (messages are the code's own texts, a bounded set).
  const ends = new Map<string, Uint8Array>();
  const endOf = (message: string) => {
    let end = ends.get(message);
    if (end === undefined) {
      end = bytesOf(`,"msg":${JSON.stringify(scrubSecrets(message))}}\n`);
      if (ends.size < 1000) ends.set(message, end);
    }
    return end;
  };
  const TRUE = bytesOf('true');
  const FALSE = bytesOf('false');
  const NULL = bytesOf('null');
  let stampedAt = -1;
  let stamp = bytesOf('');
  const line = out.lines;

  return (message, fields) => {
    if (!fields || !root.isLevelEnabled('info')) return slow(message, fields);
    const time = Date.now();
    if (time !== stampedAt) {
      stampedAt = time;
      stamp = bytesOf(`{"level":${INFO},"time":${time}`);
    }
    line.begin();
    try {
      line.raw(stamp);
      for (const field in fields) {
        const value = fields[field];
        if (value === undefined) continue;
        const key = keyOf(field);
        line.raw(key.bytes);
        if (key.secret) continue;
        if (typeof value === 'string') line.text(value);
        else if (typeof value === 'number') {
          if (Number.isFinite(value)) line.number(value);
          else line.raw(NULL);
        } else if (typeof value === 'boolean') line.raw(value ? TRUE : FALSE);
        else if (value === null) line.raw(NULL);
        else {
          line.abandon();
          return slow(message, fields);
        }
      }
      line.raw(endOf(message));
    } catch (error) {
      line.abandon();
      if (error instanceof LineTooLong) return slow(message, fields);
      throw error;
    }
    line.end();
  };
}

function wrap(p: Pino): Logger {
  return {
    debug: (message, fields) => (fields ? p.debug(fields, message) : p.debug(message)),
    info: (message, fields) => (fields ? p.info(fields, message) : p.info(message)),
    warn: (message, fields) => (fields ? p.warn(fields, message) : p.warn(message)),
    error: (message, error, fields) => p.error({ ...fields, ...(error === undefined ? {} : { err: error }) }, message),
    child: (fields: LogFields) => wrap(p.child(fields)),
  };
}

/** Logs nothing; for tools and tests that do not want lines. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
