import { ACME_KEY } from './test-server.js';

/** Acme with a status page at /status/acme (two services, a vendor) and one on a host of its own; acme-secret is on no page. */
export const PAGES_CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
      - { id: 1003, name: Acme Secret, urlname: acme-secret }
    custom_monitors:
      - { id: 501, name: Checkout probe, url: "http://127.0.0.1:9/health", probe_type: ping, interval_seconds: 60 }
    status_pages:
      - name: Acme status
        slug: acme
        services: [acme-api, acme-web]
        third_party: [demo-service-major]
        monitors: [501]
      - name: Acme on its own host
        url: https://status.acme.example
        services: [acme-api]
`;

/** Text of an HTML page as a reader sees it (tags dropped, entities of the escaper decoded, spaces folded). */
export function visibleText(html: string): string {
  return html
    .replace(/<head>[\s\S]*?<\/head>/, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
