import { isIP } from 'node:net';

/** `address`, `address:port` or `[v6]:port` as a resolver address; null when it is not an IP (with a port in range). */
export function resolverAddress(text: string): { host: string; port: number } | null {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  const plain = /^([^:]+)(?::(\d{1,5}))?$/.exec(text);
  const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : plain ? [plain[1]!, plain[2]] : isIP(text) === 6 ? [text, undefined] : [null, undefined];
  if (host === null || isIP(host) === 0) return null;
  const number = port === undefined ? 53 : Number(port);
  return number >= 1 && number <= 65_535 ? { host, port: number } : null;
}
