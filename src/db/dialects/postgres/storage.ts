/*
 * PostgreSQL: where the data is kept, a server. How logs name it (never the
 * URL's credentials), and why it could not be used, in words.
 */

/** `host:port/database` of a PostgreSQL URL, without its credentials. */
export function targetOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return 'an address that is not a valid postgres:// URL';
  }
}

/** How logs name a PostgreSQL database: `PostgreSQL at host:port/database`. */
export const labelOf = (url: string): string => `PostgreSQL at ${targetOf(url)}`;

/** Why PostgreSQL could not be used, in words. */
export function reasonOf(error: unknown): string {
  const e = error as { code?: string; message?: string };
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the server running, on this port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
      return 'no answer (timeout)';
    case '28000':
    case '28P01':
      return `authentication failed: ${e.message ?? ''}`;
    case '3D000':
      return `${e.message ?? 'the database does not exist'}`;
    case 'ERR_INVALID_URL':
      return 'not a valid postgres:// URL';
    default:
      return e.message ?? String(error);
  }
}
