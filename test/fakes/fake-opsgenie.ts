import { randomUUID } from 'node:crypto';
import { startFakeJsonApi } from './fake-json-api.js';
import type { FakeJsonApi } from './fake-json-api.js';

const ROUTES = [/^\/v2\/alerts$/, /^\/v2\/alerts\/[^/?]+\/notes\?identifierType=alias$/, /^\/v2\/alerts\/[^/?]+\/close\?identifierType=alias$/];

/** Opsgenie's Alert API: `Authorization: GenieKey <key>`, 202 with a requestId; 401 for another key, 422 for an alert without a message. */
export function startFakeOpsgenie(apiKey: string): Promise<FakeJsonApi> {
  return startFakeJsonApi({
    refuse(call) {
      if (call.method !== 'POST' || !ROUTES.some((r) => r.test(call.path)))
        return { status: 404, body: { message: 'Not found', took: 0.001, requestId: randomUUID() } };
      if (call.headers.authorization !== `GenieKey ${apiKey}`)
        return { status: 401, body: { message: 'Key format is not valid!', took: 0.001, requestId: randomUUID() } };
      if (call.path === '/v2/alerts' && (typeof call.json?.message !== 'string' || call.json.message.length > 130)) {
        return {
          status: 422,
          body: { message: 'Request body is not processable', errors: { message: 'Message can not be empty.' }, took: 0.001, requestId: randomUUID() },
        };
      }
      return null;
    },
    accept: () => ({ status: 202, body: { result: 'Request will be processed', took: 0.002, requestId: randomUUID() } }),
  });
}
