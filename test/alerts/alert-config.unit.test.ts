import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load-config.js';

const config = (alerts: string) => `
public_url: http://status.test
companies:
  - name: Acme
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
${alerts}
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

describe('companies[].alerts in the config', () => {
  it('names the service label and the default service', () => {
    const { config: parsed } = parseConfig('test.yml', config('    alerts: { service_label: team, default_service_id: 1001 }'));
    expect(parsed.setup.companies[0]!.alerts).toEqual({ service_label: 'team', default_service_id: 1001 });
  });

  it('reads the label service by default', () => {
    const { config: parsed } = parseConfig('test.yml', config('    alerts: {}'));
    expect(parsed.setup.companies[0]!.alerts).toEqual({ service_label: 'service' });
  });

  it('refuses a default service that is not one of the company', () => {
    expect(failure(config('    alerts: { default_service_id: 1002 }'))).toContain('must be the id of one of the custom_services of this company');
  });

  it('refuses an unknown key', () => {
    expect(failure(config('    alerts: { label: team }'))).toContain('label');
  });
});
