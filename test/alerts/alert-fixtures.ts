import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'alerts');

/** A payload of test/fixtures/alerts (see SOURCES.md there), a fresh copy each time. */
export const alertFixture = (name: 'alertmanager-firing.json' | 'grafana-webhook.json'): any => JSON.parse(readFileSync(join(DIR, name), 'utf8'));

/** Alertmanager's documented example, as one group of its own. */
export function alertmanagerPayload(groupKey: string, change: (p: any) => void = () => {}): any {
  const payload = alertFixture('alertmanager-firing.json');
  payload.groupKey = groupKey;
  change(payload);
  return payload;
}

/** The payload with its alerts (and the group) resolved, as Alertmanager sends it once they are. */
export function resolvedPayload(payload: any): any {
  const resolved = structuredClone(payload);
  resolved.status = 'resolved';
  for (const alert of resolved.alerts) {
    alert.status = 'resolved';
    alert.endsAt = '2026-11-22T10:30:00Z';
  }
  return resolved;
}

/** Two companies: Acme with the default label (`service`), Globex reading `team` and falling back on its API. */
export const ALERTS_CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["acme-key-1"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    status_pages:
      - name: Acme status
        url: https://status.acme.example
        services: [acme-api, acme-web]
        subscribers:
          - { webhook: "https://hooks.acme.example/statusbot", secret: "0123456789abcdef0123" }
  - name: Globex
    plan: business
    api_keys: ["globex-key-1"]
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
      - { id: 2002, name: Blue team, urlname: blue }
    alerts: { service_label: team, default_service_id: 2001 }
`;
