import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load-config.js';

const config = (groups: string) => `
public_url: http://status.test
companies:
  - name: Acme
    custom_services:
      - { id: 1001, name: Acme API, urlname: acme-api }
      - { id: 1002, name: Acme Web, urlname: acme-web }
      - { id: 1003, name: Acme Billing, urlname: acme-billing }
    status_pages:
      - name: Acme status
        services: [acme-web, acme-api]
        groups:
${groups}
`;

function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`"${needle}" is not in the text`);
  return i + 1;
}

function failure(text: string): string {
  try {
    parseConfig('test.yml', text);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('status_pages[].groups in the config', () => {
  it('are accepted over services the page shows, in the order written', () => {
    const { config: parsed } = parseConfig('test.yml', config('          - { name: Backend, services: [acme-api, acme-web] }'));
    expect(parsed.setup.companies[0]!.status_pages[0]!.groups).toEqual([{ name: 'Backend', services: ['acme-api', 'acme-web'] }]);
  });

  it('default to none', () => {
    const { config: parsed } = parseConfig('test.yml', config('          []').replace('groups:\n', 'groups:'));
    expect(parsed.setup.companies[0]!.status_pages[0]!.groups).toEqual([]);
  });

  it('refuse a service the page does not show, naming it at its line', () => {
    const text = config('          - { name: Backend, services: [acme-api, acme-billing] }');
    const message = failure(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'acme-billing] }')}:`);
    expect(message).toContain('companies[0].status_pages[0].groups[0].services[1]');
    expect(message).toContain('acme-billing is not among the services of this page');
  });

  it('refuse an unknown urlname the same way', () => {
    const text = config('          - { name: Backend, services: [acme-nope] }');
    const message = failure(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'acme-nope')}:`);
    expect(message).toContain('acme-nope is not among the services of this page');
  });

  it('refuse a service in two groups, at the second', () => {
    const text = config(['          - { name: Backend, services: [acme-api] }', '          - { name: Front, services: [acme-web, acme-api] }'].join('\n'));
    const message = failure(text);
    expect(message).toContain(`test.yml:${lineOf(text, 'name: Front')}:`);
    expect(message).toContain('companies[0].status_pages[0].groups[1].services[1]');
    expect(message).toContain('acme-api is already in the group Backend');
  });

  it('refuse an empty group and a group name given twice', () => {
    expect(failure(config('          - { name: Backend, services: [] }'))).toContain('companies[0].status_pages[0].groups[0].services');
    const text = config(['          - { name: Backend, services: [acme-api] }', '          - { name: Backend, services: [acme-web] }'].join('\n'));
    expect(failure(text)).toContain('declares the group Backend again');
  });
});
