import { startFakeJsonApi } from './fake-json-api.js';
import type { FakeJsonApi } from './fake-json-api.js';

/**
 * PagerDuty's Events API v2 (POST /v2/enqueue): 202 with status and dedup_key;
 * 400 "invalid event" for an event without its required fields or another routing key.
 */
export function startFakePagerDuty(routingKey: string): Promise<FakeJsonApi> {
  return startFakeJsonApi({
    refuse(call) {
      const e = call.json as Record<string, any> | undefined;
      const errors: string[] = [];
      if (call.method !== 'POST' || call.path !== '/v2/enqueue') return { status: 404, body: { message: 'Not found' } };
      if (e?.routing_key !== routingKey) errors.push("'routing_key' is invalid");
      if (!['trigger', 'acknowledge', 'resolve'].includes(e?.event_action)) errors.push("'event_action' is invalid");
      if (typeof e?.dedup_key !== 'string' || e.dedup_key.length > 255) errors.push("'dedup_key' is invalid");
      if (e?.event_action === 'trigger') {
        const p = e.payload as Record<string, unknown> | undefined;
        if (typeof p?.summary !== 'string' || p.summary.length > 1024) errors.push("'payload.summary' is missing or blank");
        if (typeof p?.source !== 'string' || !p.source) errors.push("'payload.source' is missing or blank");
        if (!['critical', 'error', 'warning', 'info'].includes(p?.severity as string)) errors.push("'payload.severity' is invalid");
      }
      return errors.length > 0 ? { status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors } } : null;
    },
    accept: (call) => ({ status: 202, body: { status: 'success', message: 'Event processed', dedup_key: call.json.dedup_key } }),
  });
}
