import type { IncomingMessage } from 'node:http';
import { HttpProblem } from './http-errors.js';

const JSON_TYPE = /^application\/(?:[a-z0-9.+-]*\+)?json\s*(?:;|$)/i;

/**
 * JSON is UTF-8 (RFC 8259): a body that is not is refused, as a path that is not is, rather than stored with
 * U+FFFD in place of what was sent. A byte-order mark is kept, for JSON.parse to refuse as before.
 */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The JSON object in the body; undefined for an empty body. */
export function parseJsonBody(req: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const type = req.headers['content-type'];
  if (!type || !JSON_TYPE.test(type)) {
    throw new HttpProblem('bad_request', 'The body must be JSON, sent with Content-Type: application/json');
  }
  let text: string;
  try {
    text = STRICT_UTF8.decode(raw);
  } catch {
    throw new HttpProblem('bad_request', 'The body is not valid UTF-8');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new HttpProblem('bad_request', `The body is not valid JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpProblem('bad_request', 'The body must be a JSON object');
  }
  return parsed;
}
