import { startFakeJsonApi } from './fake-json-api.js';
import type { FakeJsonApi } from './fake-json-api.js';

/** A Teams Workflows webhook ("when a Teams webhook request is received"): 202, no body; 400 for anything but a message of attachments. */
export function startFakeTeams(): Promise<FakeJsonApi> {
  return startFakeJsonApi({
    refuse: (call) =>
      call.json?.type === 'message' && Array.isArray(call.json.attachments) ? null : { status: 400, body: { error: { code: 'InvalidRequestContent' } } },
    accept: () => ({ status: 202 }),
  });
}
