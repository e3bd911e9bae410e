import { randomUUID } from 'node:crypto';
import { startFakeJsonApi } from './fake-json-api.js';
import type { Answer, FakeJsonApi } from './fake-json-api.js';

const ALIAS_ACTION = /^\/v2\/alerts\/([^/?]+)\/(notes|close|priority)\?identifierType=alias$/;
const PRIORITIES = new Set(['P1', 'P2', 'P3', 'P4', 'P5']);

/** An alert as Opsgenie holds it after the requests it accepted. */
export interface FakeAlert {
  message: string;
  priority: string;
  notes: string[];
  closed: boolean;
}

export interface FakeOpsgenie extends FakeJsonApi {
  /** Alerts by alias. */
  readonly alerts: Map<string, FakeAlert>;
}

const answer = (status: number, body: Record<string, unknown>): Answer => ({ status, body: { ...body, took: 0.001, requestId: randomUUID() } });
const unprocessable = (field: string, message: string): Answer => answer(422, { message: 'Request body is not processable', errors: { [field]: message } });

/** What the API refuses: another method or path, another key, a message over 130 characters, a priority other than P1–P5. */
function refusal(call: { method: string; path: string; headers: Record<string, unknown>; json: any }, apiKey: string): Answer | null {
  const action = ALIAS_ACTION.exec(call.path)?.[2];
  const method = action === 'priority' ? 'PUT' : 'POST';
  if ((call.path !== '/v2/alerts' && !action) || call.method !== method) return answer(404, { message: 'Not found' });
  if (call.headers.authorization !== `GenieKey ${apiKey}`) return answer(401, { message: 'Key format is not valid!' });
  if (call.path === '/v2/alerts') {
    if (typeof call.json?.message !== 'string' || call.json.message.length === 0) return unprocessable('message', 'Message can not be empty.');
    if (call.json.message.length > 130) return unprocessable('message', 'Message can not be longer than 130 characters.');
  }
  if (action === 'priority' && !PRIORITIES.has(call.json?.priority)) return unprocessable('priority', 'Priority should be one of [P1, P2, P3, P4, P5]');
  return null;
}

/**
 * Opsgenie's Alert API: `Authorization: GenieKey <key>`, 202 with a requestId.
 * Create, add note and close by POST; update priority by
 * `PUT /v2/alerts/{alias}/priority?identifierType=alias` with `{ priority }`.
 */
export async function startFakeOpsgenie(apiKey: string): Promise<FakeOpsgenie> {
  const alerts = new Map<string, FakeAlert>();
  const api = await startFakeJsonApi({
    refuse: (call) => refusal(call, apiKey),
    accept(call) {
      const [, alias, action] = ALIAS_ACTION.exec(call.path) ?? [];
      if (!alias) {
        const open = alerts.get(call.json.alias);
        // Opsgenie deduplicates by alias: an open alert of the alias is kept as it is.
        if (!open || open.closed) alerts.set(call.json.alias, { message: call.json.message, priority: call.json.priority ?? 'P3', notes: [], closed: false });
      } else {
        const alert = alerts.get(decodeURIComponent(alias));
        if (alert && action === 'priority') alert.priority = call.json.priority;
        if (alert && action !== 'priority' && call.json?.note) alert.notes.push(call.json.note);
        if (alert && action === 'close') alert.closed = true;
      }
      return answer(202, { result: 'Request will be processed' });
    },
  });
  return Object.assign(api, { alerts });
}
