import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
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

/** The host of the page of STATUSPAGE_API_CONFIG. */
export const OWN_HOST = 'status.acme.example';
/** A page on a host of its own, its services listed out of alphabetical order, two of them in a group (in the group's own order). */
export const STATUSPAGE_API_CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
      - { id: 1003, name: Acme Billing, urlname: acme-billing }
      - { id: 1004, name: Acme Auth, urlname: acme-auth }
    status_pages:
      - name: Acme status
        slug: acme
        url: https://${OWN_HOST}
        services: [acme-web, acme-api, acme-billing, acme-auth]
        groups:
          - { name: Backend, services: [acme-billing, acme-api] }
`;

/** Every endpoint of Statuspage's public API v2, as its clients ask them. */
export const STATUSPAGE_ENDPOINTS = [
  'summary.json',
  'status.json',
  'components.json',
  'incidents.json',
  'incidents/unresolved.json',
  'scheduled-maintenances.json',
  'scheduled-maintenances/upcoming.json',
  'scheduled-maintenances/active.json',
] as const;

export interface HostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/** fetch() sets Host itself: a request for another host goes through node:http. */
export function askHost(base: string, options: { host?: string; method?: string; path: string; headers?: Record<string, string> }): Promise<HostAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers, ...(options.host ? { host: options.host } : {}) };
    const req = request(`${base}${options.path}`, { method: options.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
