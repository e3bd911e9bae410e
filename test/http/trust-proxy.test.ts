import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIBE_PER_MINUTE } from '../../src/http/pages/subscription-routes.js';
import { ACME_KEY, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';

/** The test client plays the reverse proxy: every request reaches statusbot from 127.0.0.1. */
const config = (http: string) => `
public_url: http://status.test
rate_limit: { per_minute: 3 }
${http}
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
    status_pages:
      - { name: Acme status, slug: acme, services: [acme-api] }
`;

const CLIENT_A = '203.0.113.1';
const CLIENT_B = '203.0.113.2';

/** A request with a wrong API key, forwarded by the proxy for a client. */
const wrongKey = (s: TestServer, forwardedFor: string) =>
  s.api('GET', '/api/v2/services', { key: 'not-a-key-of-anyone', headers: { 'x-forwarded-for': forwardedFor } });

const subscribe = (s: TestServer, email: string, forwardedFor: string) =>
  fetch(`${s.url}/status/acme/subscribe`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
    body: new URLSearchParams({ email }).toString(),
  });

describe('behind a trusted reverse proxy (http.trust_proxy)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ config: config('http: { trust_proxy: [127.0.0.1, "::1"] }') });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('gives two clients behind the same proxy separate wrong-key budgets; prepending another address does not move one', async () => {
    for (let i = 0; i < 3; i++) expect((await wrongKey(s, CLIENT_A)).status).toBe(401);
    const limited = await wrongKey(s, CLIENT_A);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A spoofs B's address at the front; the proxy appended the address it saw, A's.
    expect((await wrongKey(s, `${CLIENT_B}, ${CLIENT_A}`)).status).toBe(429);

    // B, behind the same proxy, still has its whole budget.
    for (let i = 0; i < 3; i++) expect((await wrongKey(s, CLIENT_B)).status).toBe(401);
    expect((await wrongKey(s, CLIENT_B)).status).toBe(429);
    // A valid key is never refused for its address's wrong guesses.
    expect((await s.api('GET', '/api/v2/services', { headers: { 'x-forwarded-for': CLIENT_A } })).status).toBe(200);
  });

  it('gives each client behind the proxy its own sign-up limit on status pages', async () => {
    const a = '198.51.100.10';
    for (let i = 0; i < SUBSCRIBE_PER_MINUTE; i++) expect((await subscribe(s, `a${i}@example.com`, a)).status).toBe(303);
    expect((await subscribe(s, 'a-too-many@example.com', a)).status).toBe(429);
    expect((await subscribe(s, 'b@example.com', '198.51.100.11')).status).toBe(303);
  });
});

describe('without http.trust_proxy (the default)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ config: config('') });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("believes no X-Forwarded-For: every client behind the proxy shares its address's budget", async () => {
    for (let i = 0; i < 3; i++) expect((await wrongKey(s, CLIENT_A)).status).toBe(401);
    expect((await wrongKey(s, CLIENT_A)).status).toBe(429);
    expect((await wrongKey(s, CLIENT_B)).status).toBe(429);
  });
});
