import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpsgenie } from '../fakes/fake-opsgenie.js';
import type { FakeOpsgenie } from '../fakes/fake-opsgenie.js';
import { startFakeTelegram } from '../fakes/fake-telegram.js';
import type { FakeTelegram } from '../fakes/fake-telegram.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { acmeConfig, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { hasLoneSurrogate } from '../helpers/lone-surrogate.js';

const GENIE_KEY = 'eb243592-faa2-4ba2-a551q-1afdf565c889';
const BOT_TOKEN = '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11';
const FAST = { enabled: true, baseDelayMs: 20, maxDelayMs: 80, pollMs: 10 } as const;

let opsgenie: FakeOpsgenie;
let telegram: FakeTelegram;
let database: TestDatabase;
let s: TestServer;

beforeEach(async () => {
  [opsgenie, telegram, database] = await Promise.all([startFakeOpsgenie(GENIE_KEY), startFakeTelegram(BOT_TOKEN), createTestDatabase()]);
  const company = `    notify:
      - { opsgenie: { api_key: "${GENIE_KEY}", url: "${opsgenie.url}" } }
      - { telegram: { bot_token: "${BOT_TOKEN}", chat_id: "-100123", api_url: "${telegram.url}" } }`;
  s = await startTestServer({ config: acmeConfig({ company }), dbPath: database.path, delivery: FAST });
});
afterEach(async () => {
  await s?.stop();
  await Promise.all([opsgenie.close(), telegram.close()]);
  await database.drop();
});

describe('text cut to a destination limit', () => {
  it('reaches Opsgenie and Telegram without half an emoji', async () => {
    // 129 units before the emoji: a cut at 130 falls between its two halves.
    const title = `${'a'.repeat(129)}😀 and more`;
    const description = `${'a'.repeat(1)}${'😀'.repeat(4_000)}`;
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title, status: 'major', description } });
    expect(created.status, created.text).toBe(201);
    await waitUntil(async () => (await s.ctx.db.selectFrom('outbox').select('state').where('state', '=', 'sent').execute()).length === 2, {
      what: 'both destinations told',
    });
    const message = opsgenie.received[0]!.json.message as string;
    expect(message).toBe('a'.repeat(129));
    expect(hasLoneSurrogate(message)).toBe(false);
    const text = telegram.messages[0]!.text;
    expect(hasLoneSurrogate(text)).toBe(false);
    expect(text).toMatch(/😀…\n\n/);
  });
});
