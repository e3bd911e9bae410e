/** The error's name, by which one thrown from another copy of the class is known too. */
const DATABASE_UNAVAILABLE = 'DatabaseUnavailableError';

/**
 * A database that cannot be used now: it says where and why in one line
 * (never a password). The fronts answer it as "try again later" (503 with
 * Retry-After), not as a fault of the request; they know it by this kind
 * alone, and never the database module that throws it.
 */
export class DatabaseUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = DATABASE_UNAVAILABLE;
  }
}

/**
 * SQLSTATEs with which a running PostgreSQL server refuses a new connection
 * for now: 53300 too_many_connections (max_connections, or a role's or a
 * database's CONNECTION LIMIT, taken), 57P03 cannot_connect_now (starting up,
 * shutting down, in recovery). Such a server is there and will admit the
 * connection later: not a fault of the request or of the configuration.
 */
const REFUSED_NOW = new Set(['53300', '57P03']);

/** Whether the error (or one it was caused by) is PostgreSQL refusing a connection for now. */
export function refusesConnectionsNow(error: unknown): boolean {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && REFUSED_NOW.has(code)) return true;
  }
  return false;
}

/** Codes of a connection that failed or was lost: the socket's, and PostgreSQL's administrator or crash shutdowns. */
const LOST_CONNECTION = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03']);
/** What the PostgreSQL client and its pool say of a connection they could not make or lost. */
const LOST_CONNECTION_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i;

/** Errors that say the database cannot be reached now (a PostgreSQL server down or restarting), not that a query is wrong. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof Error && error.name === DATABASE_UNAVAILABLE) return true;
  if (refusesConnectionsNow(error)) return true;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  // Class 08: connection exceptions.
  return LOST_CONNECTION.has(code) || code.startsWith('08') || LOST_CONNECTION_MESSAGE.test(message);
}
