import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe("the README's configuration reference", () => {
  it('is a config statusbot accepts, every key of it', () => {
    const blocks = [...README.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const { config } = parseConfig('README.md', block);
      expect(config.setup.companies.length).toBeGreaterThan(0);
    }
  });

  it('names Slack admins as the Permissions section says', () => {
    const block = [...README.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('slack:'));
    const { config } = parseConfig('README.md', block!);
    expect(config.setup.companies[0]!.slack).toEqual({ team_id: 'T0123ABCD', admins: ['U0123ABCD'] });
  });
});
