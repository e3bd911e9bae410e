import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeTelegram } from '../fakes/fake-telegram.js';
import type { FakeTelegram } from '../fakes/fake-telegram.js';
import { createTestDatabase } from '../helpers/test-database.js';
import type { TestDatabase } from '../helpers/test-database.js';
import { acmeConfig, startTestServer } from '../helpers/test-server.js';
import type { TestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const BOT_TOKEN = '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11';
const FAST = { enabled: true, baseDelayMs: 20, maxDelayMs: 80, pollMs: 10 } as const;

let telegram: FakeTelegram;
let database: TestDatabase;
let s: TestServer;

beforeEach(async () => {
  [telegram, database] = await Promise.all([startFakeTelegram(BOT_TOKEN), createTestDatabase()]);
  const company = `    notify:\n      - { telegram: { bot_token: "${BOT_TOKEN}", chat_id: "-100123", api_url: "${telegram.url}" } }`;
  s = await startTestServer({ config: acmeConfig({ company }), dbPath: database.path, delivery: FAST });
});
afterEach(async () => {
  await s?.stop();
  await telegram.close();
  await database.drop();
});

describe('Markdown in an update, at Telegram', () => {
  it('arrives as the HTML parse mode reads it: bold, italics, code, links and lists, the rest escaped', async () => {
    const created = await s.api('POST', '/api/v2/incidents', { body: { service_id: 1001, title: 'Queue backlog' } });
    const id = Number(created.body.data.id);
    const description =
      '**Rolled back** the _deploy_ of `api<2>`, see [the runbook](https://runbook.example/q?a=1&b=2)\n- drained queue_a & queue_b\n- 2 * 3 < 7';
    await s.api('PATCH', `/api/v2/incidents/${id}`, { body: { description, resolution_stage: 'monitoring' } });
    await waitUntil(() => telegram.messages.length === 2, { what: 'the update posted' });
    expect(telegram.received[1]!.json.parse_mode).toBe('HTML');
    const [, body] = telegram.messages[1]!.text.split('\n\n');
    expect(body).toBe(
      '<b>Rolled back</b> the <i>deploy</i> of <code>api&lt;2&gt;</code>, see <a href="https://runbook.example/q?a=1&amp;b=2">the runbook</a>\n• drained queue_a &amp; queue_b\n• 2 * 3 &lt; 7',
    );
  });
});
