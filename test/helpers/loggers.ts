import type { LogFields, Logger } from '../../src/infrastructure/logger.js';

export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields;
  error?: unknown;
}

/** Keeps every record, child fields merged in, for tests that assert what was logged. */
export function recordingLogger(records: LogRecord[] = [], bound: LogFields = {}): Logger & { records: LogRecord[] } {
  const at =
    (level: LogRecord['level']) =>
    (message: string, fields?: LogFields): void => {
      records.push({ level, message, fields: { ...bound, ...fields } });
    };
  return {
    records,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: (message, error, fields) => records.push({ level: 'error', message, fields: { ...bound, ...fields }, error }),
    child: (fields) => recordingLogger(records, { ...bound, ...fields }),
  };
}

/** Silent but for errors, which a test run should show. */
export const quietLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message, error) => console.error(message, error ?? ''),
  child: () => quietLogger,
};
