import { createOutboundDispatcher, pathOf, readLimited, requestScope } from '../infrastructure/outbound.js';

/** The server's answers: its assignments run to about 220 bytes a monitor, so 64 MiB holds some 300,000. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** An answer of the server that is not a success: its status and the detail of its error shape. */
export class ServerRefusal extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`the server answered ${status}: ${detail}`);
    this.name = 'ServerRefusal';
  }
}

export interface ServerLink {
  get(path: string): Promise<unknown>;
  post(path: string, body: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * How an agent talks to its server: statusbot's one outbound client, the
 * token as Bearer. The server is the operator's own, so the private-target
 * guard (which is for the monitors' targets) does not apply to it.
 */
export function createServerLink(options: { server: string; token: string; userAgent: string; timeoutMs: number; stop?: AbortSignal }): ServerLink {
  const base = options.server.replace(/\/+$/, '');
  const { dispatcher, close } = createOutboundDispatcher({ timeoutMs: options.timeoutMs, blockPrivateTargets: false, followRedirects: false });

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const { signal, release } = requestScope(options.timeoutMs, options.stop);
    try {
      return await callWithin(method, path, body, signal);
    } finally {
      release();
    }
  }

  async function callWithin(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const url = `${base}${path}`;
    const response = await dispatcher.request({
      origin: new URL(url).origin,
      path: pathOf(url),
      method,
      headers: {
        authorization: `Bearer ${options.token}`,
        'user-agent': options.userAgent,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
    });
    const text = (await readLimited(response, MAX_ANSWER_BYTES)).toString('utf8');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return parsed;
    const detail = (parsed as { errors?: { detail?: string }[] } | undefined)?.errors?.[0]?.detail ?? text.slice(0, 200);
    throw new ServerRefusal(response.statusCode, detail);
  }

  return { get: (path) => call('GET', path), post: (path, body) => call('POST', path, body), close };
}
