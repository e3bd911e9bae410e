/**
 * A `Host` (or a URL's host) as the name it means: lower case, without the
 * trailing dot of a fully qualified name, and without a port of 80 or 443,
 * which a client or proxy may send or leave out for the same origin
 * (`Example.org:443`, `example.org.` and `example.org` name one site).
 * Another port is kept: it is another site.
 */
export function hostKey(host: string): string {
  const lower = host.trim().toLowerCase();
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(lower);
  if (!m) return lower;
  const name = m[1]!.endsWith('.') ? m[1]!.slice(0, -1) : m[1]!;
  const port = m[2];
  return port === undefined || port === '' || port === '80' || port === '443' ? name : `${name}:${port}`;
}
