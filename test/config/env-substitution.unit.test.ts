// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config's own ${NAME} references are what is tested.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load-config.js';

const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfig('statusbot.yml', text, env).config;

/** The message of the ConfigError that parsing `text` throws. */
function refusal(text: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    parse(text, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('${NAME} in the config', () => {
  it('is replaced from the environment before the YAML is read, so numbers stay numbers', () => {
    const config = parse(['public_url: "${PUBLIC}"', 'rate_limit: { per_minute: ${RATE} }', 'metrics: { token: "${METRICS_TOKEN}" }'].join('\n'), {
      PUBLIC: 'https://status.acme.example',
      RATE: '1200',
      METRICS_TOKEN: 'a-long-random-scrape-token',
    });
    expect(config.publicUrl).toBe('https://status.acme.example');
    expect(config.rateLimitPerMinute).toBe(1200);
    expect(config.metrics).toEqual({ token: 'a-long-random-scrape-token' });
  });

  it('takes the default after :- when the variable is unset or empty, and the value when it is set', () => {
    const text = 'rate_limit: { per_minute: ${RATE:-900} }';
    expect(parse(text).rateLimitPerMinute).toBe(900);
    expect(parse(text, { RATE: '' }).rateLimitPerMinute).toBe(900);
    expect(parse(text, { RATE: '42' }).rateLimitPerMinute).toBe(42);
  });

  it('an unset variable without a default is a config error naming it and its line; nothing else is read', () => {
    const message = refusal(['demo: false', 'metrics:', '  token: "${METRICS_TOKEN}"'].join('\n'));
    expect(message).toBe(
      [
        'statusbot.yml is not a valid statusbot config:',
        '  statusbot.yml:3: environment variable METRICS_TOKEN is not set (set it, or give a default: ${METRICS_TOKEN:-value})',
      ].join('\n'),
    );
  });

  it('names every unset variable, each at its own line', () => {
    const message = refusal(['public_url: "${A}"', 'rate_limit: { per_minute: ${B} }'].join('\n'));
    expect(message).toContain('statusbot.yml:1: environment variable A is not set');
    expect(message).toContain('statusbot.yml:2: environment variable B is not set');
  });

  it('$${ is a literal ${, and a lone $ stays as it is', () => {
    const config = parse('metrics: { token: "$${NOT_A_VARIABLE}-costs-$5-$$" }', {});
    expect(config.metrics).toEqual({ token: '${NOT_A_VARIABLE}-costs-$5-$$' });
  });

  it('leaves lines that are only a comment alone', () => {
    expect(parse('# token: "${NOBODY_SET_THIS}"\nrate_limit: { per_minute: 7 }').rateLimitPerMinute).toBe(7);
  });

  it('refuses a malformed reference, an unclosed one, and a value with a line break, at their lines', () => {
    expect(refusal('public_url: "${not a name}"')).toContain('statusbot.yml:1: "${not a name}" is not a variable reference');
    expect(refusal('demo: true\npublic_url: "${URL"')).toContain('statusbot.yml:2: "${URL"" has no closing "}"');
    expect(refusal('public_url: "${URL}"', { URL: 'https://a.example\nrate_limit: { per_minute: 1 }' })).toContain(
      'statusbot.yml:1: environment variable URL holds a line break',
    );
  });

  it('keeps the lines of later errors where they are in the file', () => {
    const message = refusal(['public_url: "${URL}"', 'companies:', '  - { name: Acme, plan: gold }'].join('\n'), { URL: 'https://status.acme.example' });
    expect(message).toContain('statusbot.yml:3:');
    expect(message).toMatch(/plan/);
  });
});
