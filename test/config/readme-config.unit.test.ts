import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { DOCUMENTED_ENV, documentedConfigs } from '../helpers/docs.js';

describe("the documentation's configuration examples", () => {
  it('are configs statusbot accepts, every key of them', () => {
    const blocks = documentedConfigs();
    expect(blocks.map((b) => b.page)).toContain('docs/configuration.md');
    for (const { page, yaml } of blocks) {
      const { config } = parseConfig(page, yaml, DOCUMENTED_ENV);
      expect(config.setup.companies.length, page).toBeGreaterThan(0);
    }
  });

  it('name Slack admins as the Permissions section says', () => {
    const block = documentedConfigs().find((b) => b.page === 'docs/configuration.md' && b.yaml.includes('slack:'));
    const { config } = parseConfig('docs/configuration.md', block!.yaml);
    expect(config.setup.companies[0]!.slack).toEqual({ team_id: 'T0123ABCD', admins: ['U0123ABCD'] });
  });
});
