import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebhook } from '../fakes/fake-webhook.js';
import type { FakeWebhook } from '../fakes/fake-webhook.js';
import { FAST_DELIVERY, GLOBEX_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { alertmanagerPayload, resolvedPayload } from './alert-fixtures.js';

const config = (hook: string) => `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["acme-key-1"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    status_pages:
      - name: Acme status
        url: https://status.acme.example
        services: [acme-api]
        subscribers:
          - { webhook: "${hook}/hooks/a", secret: "0123456789abcdef0123" }
  - name: Globex
    plan: business
    api_keys: ["${GLOBEX_KEY}"]
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
`;

let hook: FakeWebhook;
let s: TestServer;
beforeAll(async () => {
  hook = await startFakeWebhook();
  s = await startTestServer({ config: config(hook.url), delivery: FAST_DELIVERY });
});
afterAll(async () => {
  await s.stop();
  await hook.close();
});

const postmortem = (id: string, key?: string) => s.api('GET', `/api/v2/incidents/${id}/postmortem`, key ? { key } : {});
const incident = async (id: string) => (await s.api('GET', `/api/v2/incidents/${id}`)).body.data.attributes;

async function alert(payload: unknown): Promise<string> {
  const res = await s.api('POST', '/api/v2/alerts/alertmanager', { body: payload });
  expect(res.status, res.text).toBe(202);
  return res.body.data.attributes.incidents[0];
}

/** Whether the outbox holds `count` rows, all sent (the webhook's answer recorded). */
const allSent = (count: number) => async () => {
  const rows = await s.ctx.db.selectFrom('outbox').select('state').execute();
  return rows.length === count && rows.every((r) => r.state === 'sent');
};

/** The lines of the timeline section. */
const timelineOf = (text: string): string[] =>
  text
    .slice(text.indexOf('## Timeline\n'), text.indexOf('## Impact'))
    .split('\n')
    .filter((l) => l.startsWith('- '));

describe('GET /api/v2/incidents/{id}/postmortem', () => {
  it('is Markdown with the facts, the timeline oldest first (updates, changes, notifications sent) and empty sections', async () => {
    const payload = alertmanagerPayload('{}:{alertname="Postmortem"}');
    const id = await alert(payload);
    await waitUntil(allSent(1), { what: 'the created notification' });
    const patched = await s.api('PATCH', `/api/v2/incidents/${id}`, {
      body: { status: 'minor', description: 'Rolled back the deploy', resolution_stage: 'identified' },
    });
    expect(patched.status).toBe(200);
    await waitUntil(allSent(2), { what: 'the updated notification' });
    await alert(resolvedPayload(payload));
    await waitUntil(allSent(3), { what: 'the resolved notification' });

    const res = await postmortem(id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = res.text;
    const facts = await incident(id);
    expect(text).toMatch(/^# Postmortem: High error rate on the Acme API\n/);
    expect(text).toContain('- **Service:** Acme API\n');
    expect(text).toContain('- **Severity:** minor\n');
    expect(text).toContain('- **Lead:** none\n');
    expect(text).toContain(`- **Started:** ${facts.created_at}\n`);
    expect(text).toContain(`- **Resolved:** ${facts.resolved_at}\n`);
    expect(text).toMatch(/- \*\*Duration:\*\* (\d+[dhms] ?){1,2}\n/);

    const timeline = timelineOf(text);
    const expected = [
      /^- \S+ — Opened by api_key:\d+ — investigating: 2 alerts firing:$/,
      new RegExp(`^- \\S+ — Notification sent: incident\\.created to webhook ${hook.url}/hooks/a$`),
      /^- \S+ — Severity major → minor by api_key:\d+ — identified: Rolled back the deploy$/,
      /^- \S+ — Notification sent: incident\.updated to webhook /,
      /^- \S+ — Resolved by api_key:\d+ — resolved: All 2 alerts are resolved\.$/,
      /^- \S+ — Notification sent: incident\.resolved to webhook /,
    ];
    expect(timeline).toHaveLength(expected.length);
    for (const [i, line] of timeline.entries()) expect(line).toMatch(expected[i]!);
    const times = timeline.map((l) => Date.parse(l.split(' ')[1]!));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The alerts the first update lists stay inside its item.
    expect(text).toContain('\n  - HighErrorRate (instance=api-1:9100');
    expect(text).toMatch(/## Impact\n\n## Root cause\n\n## Action items\n$/);
  });

  it('says "not yet" and how long so far for an incident still open', async () => {
    const id = await alert(alertmanagerPayload('{}:{alertname="StillOpen"}'));
    const text = (await postmortem(id)).text;
    expect(text).toContain('- **Resolved:** not yet\n');
    expect(text).toMatch(/- \*\*Duration:\*\* .+ so far\n/);
  });

  it("is a 404 for another company's incident and for none", async () => {
    const id = await alert(alertmanagerPayload('{}:{alertname="Private"}'));
    const other = await postmortem(id, GLOBEX_KEY);
    expect(other.status).toBe(404);
    expect(other.body.errors[0].title).toBe('Resource not found');
    expect((await postmortem('999999')).status).toBe(404);
    expect((await postmortem('abc')).status).toBe(404);
  });
});
