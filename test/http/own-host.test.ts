import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visibleText } from '../helpers/pages.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/** Pages on hosts of their own: one plain, one configured with a trailing dot, one on a port that is not the default. */
const CONFIG = `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    status_pages:
      - name: Acme on its own host
        url: https://acme-status.example
        services: [acme-api]
      - name: Acme dotted
        url: https://dotted.acme.example./
        services: [acme-api]
      - name: Acme on a port
        url: https://ported.acme.example:8443
        services: [acme-api]
`;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: CONFIG });
});
afterAll(async () => {
  await t.stop();
});

/** fetch() sets Host itself: a request naming another host goes through node:http. */
const getFromHost = (host: string, path: string) =>
  new Promise<{ status: number; body: string; type: string }>((resolve, reject) => {
    const req = request(`${t.url}${path}`, { headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), type: res.headers['content-type'] ?? '' }));
    });
    req.on('error', reject);
    req.end();
  });

/** The name in the page's title, or the home page's. */
const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '';

describe('a page on a host of its own', () => {
  const sameHost = [
    'acme-status.example',
    'ACME-Status.Example',
    'acme-status.example:80',
    'acme-status.example:443',
    'acme-status.example.',
    'acme-status.example.:443',
  ];
  for (const host of sameHost) {
    it(`is served at / for Host: ${host}`, async () => {
      const res = await getFromHost(host, '/');
      expect(res.status).toBe(200);
      expect(titleOf(res.body)).toContain('Acme on its own host');
      expect(visibleText(res.body)).not.toContain('Acme dotted');
    });
  }

  it('serves its Statuspage documents for a Host with the default port or a trailing dot', async () => {
    for (const host of ['acme-status.example:443', 'acme-status.example.']) {
      const res = await getFromHost(host, '/api/v2/status.json');
      expect(res.status, res.body).toBe(200);
      expect(JSON.parse(res.body).page.name).toBe('Acme on its own host');
    }
  });

  it('configured with a trailing dot, is served for its host with or without it', async () => {
    for (const host of ['dotted.acme.example', 'dotted.acme.example.', 'dotted.acme.example:80']) {
      expect(titleOf((await getFromHost(host, '/')).body), host).toContain('Acme dotted');
    }
  });

  it('on a port that is not the default, is served for that port only', async () => {
    expect(titleOf((await getFromHost('ported.acme.example:8443', '/')).body)).toContain('Acme on a port');
    expect(titleOf((await getFromHost('ported.acme.example.:8443', '/')).body)).toContain('Acme on a port');
    expect(titleOf((await getFromHost('ported.acme.example', '/')).body)).not.toContain('Acme on a port');
    expect(titleOf((await getFromHost('ported.acme.example:443', '/')).body)).not.toContain('Acme on a port');
  });
});
