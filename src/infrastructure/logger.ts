/** Fields of a log record beside its message: request id, route, company, durations. Never a secret. */
export type LogFields = Record<string, unknown>;

/** What every part of statusbot logs through; the composition root chooses where lines go (see pino-logger.ts). */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  /** `error` is logged with its stack. */
  error(message: string, error?: unknown, fields?: LogFields): void;
  /** A logger whose every record carries `fields` too (a job's name, a request's id). */
  child(fields: LogFields): Logger;
  /** Writes what is buffered now (the start line, before the operator looks for it). */
  flush?(): void;
}
