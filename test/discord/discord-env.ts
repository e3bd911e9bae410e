import { ACME_KEY, GLOBEX_KEY } from '../helpers/test-server.js';
import { FAKE_APPLICATION_ID, FAKE_DISCORD_TOKEN } from '../fakes/fake-discord.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';

/** Discord on, HTTP interactions verified with the fake's key, REST calls to the fake, no gateway. */
export const discordEnv = (fake: FakeDiscord, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
  DISCORD_APPLICATION_ID: FAKE_APPLICATION_ID,
  DISCORD_PUBLIC_KEY: fake.publicKey,
  DISCORD_API_URL: fake.apiUrl,
  DISCORD_GATEWAY: 'off',
  ...extra,
});

export const FAST_DELIVERY = { enabled: true, baseDelayMs: 20, maxDelayMs: 200, pollMs: 20 } as const;

/** Acme acts in guild 111 (from the config); Globex is not linked anywhere. */
export const discordConfig = (channels = '') => `
public_url: http://status.test
rate_limit: { per_minute: 100000 }
services:
  - { urlname: acme-cloud, name: Acme Cloud }
companies:
  - name: Acme
    plan: business
    api_keys: ["${ACME_KEY}"]
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
    boards:
      - { id: 5d0e8f8e-8b1c-4c55-9d7a-2f1f0c0f4a01, name: Vendors, urlname: vendors, services: [{ urlname: acme-cloud }] }
    discord: { guild_id: "111" }
${channels}
  - name: Globex
    plan: business
    api_keys: ["${GLOBEX_KEY}"]
    custom_services:
      - { id: 2001, name: Globex API, urlname: globex-api }
`;
