import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load-config.js';

const withNotify = (entries: string) => `
companies:
  - name: Acme
    notify:
${entries}
`;

function failure(text: string): string {
  try {
    parseConfig('test.yml', text);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
}

const destinationsOf = (entries: string) => parseConfig('test.yml', withNotify(entries)).config.setup.companies[0]!.notify;

describe('notify destinations in the config', () => {
  it('are read with their defaults: the public PagerDuty, Opsgenie and Telegram addresses', () => {
    expect(
      destinationsOf(`      - { pagerduty: { routing_key: "R0UT1NGKEY" } }
      - { opsgenie: { api_key: "key-1" } }
      - { teams: { webhook: "https://acme.logic.azure.com/workflows/1?sig=x" } }
      - { telegram: { bot_token: "123:abc", chat_id: -1001234567890 } }`),
    ).toEqual([
      { kind: 'pagerduty', routing_key: 'R0UT1NGKEY', url: 'https://events.pagerduty.com/v2/enqueue' },
      { kind: 'opsgenie', api_key: 'key-1', url: 'https://api.opsgenie.com' },
      { kind: 'teams', webhook: 'https://acme.logic.azure.com/workflows/1?sig=x' },
      { kind: 'telegram', bot_token: '123:abc', chat_id: '-1001234567890', api_url: 'https://api.telegram.org' },
    ]);
  });

  it('an entry of no kind, or of two, is refused at its line', () => {
    expect(failure(withNotify('      - {}'))).toMatch(/companies\[0\]\.notify\[0\].*needs exactly one of pagerduty, opsgenie, teams or telegram/);
    const two = failure(withNotify('      - { pagerduty: { routing_key: "R0UT1NGKEY" }, teams: { webhook: "https://t.example/w" } }'));
    expect(two).toMatch(/needs exactly one of pagerduty, opsgenie, teams or telegram/);
  });

  it('bad addresses and tokens are refused, without repeating a secret', () => {
    expect(failure(withNotify('      - { teams: { webhook: "ftp://t.example/w" } }'))).toMatch(/notify\[0\]\.teams\.webhook.*must be an http\(s\) URL/);
    expect(failure(withNotify('      - { pagerduty: { routing_key: "R0UT1NGKEY", url: "not a url" } }'))).toMatch(/pagerduty\.url.*must be an http\(s\) URL/);
    const token = failure(withNotify('      - { telegram: { bot_token: "S3CRET-no-colon", chat_id: "-100" } }'));
    expect(token).toMatch(/telegram\.bot_token.*must be a bot token/);
    expect(token).not.toContain('S3CRET-no-colon');
    expect(failure(withNotify('      - { telegram: { bot_token: "1:a", chat_id: "general chat" } }'))).toMatch(/chat_id.*must be a chat id/);
  });

  it('the same destination twice is refused without naming its key', () => {
    const twice = failure(withNotify('      - { pagerduty: { routing_key: "R0UT1NGKEY" } }\n      - { pagerduty: { routing_key: "R0UT1NGKEY" } }'));
    expect(twice).toMatch(/notify\[1\].*declares the same notification destination again/);
    expect(twice).not.toContain('R0UT1NGKEY');
  });
});
