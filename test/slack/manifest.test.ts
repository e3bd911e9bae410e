import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));

describe('manifest.yml', () => {
  it('declares the three slash commands at /slack/events, with descriptions and usage hints', () => {
    const commands = manifest.features.slash_commands as { command: string; url: string; description: string; usage_hint: string }[];
    expect(commands.map((c) => c.command).sort()).toEqual(['/incident', '/status', '/statusbot']);
    for (const c of commands) {
      expect(c.url).toBe('https://YOUR-HOST/slack/events');
      expect(c.description.length).toBeGreaterThan(0);
      expect(c.description.length).toBeLessThanOrEqual(2000);
      expect(c.usage_hint.length).toBeGreaterThan(0);
      expect(c.usage_hint.length).toBeLessThanOrEqual(1000);
    }
  });

  it('turns interactivity on at the same URL, and says whether Socket Mode is used', () => {
    expect(manifest.settings.interactivity).toEqual({ is_enabled: true, request_url: 'https://YOUR-HOST/slack/events' });
    expect(typeof manifest.settings.socket_mode_enabled).toBe('boolean');
  });

  it('asks for the bot scopes the app uses, and only those', () => {
    expect(manifest.oauth_config.scopes.bot).toEqual(['commands', 'chat:write', 'chat:write.public']);
  });

  it('has display information within Slack\'s limits', () => {
    const info = manifest.display_information;
    expect(info.name).toBe('statusbot');
    expect(info.description.length).toBeLessThanOrEqual(140);
    expect(info.long_description.length).toBeGreaterThanOrEqual(175);
    expect(info.long_description.length).toBeLessThanOrEqual(4000);
    expect(info.background_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(manifest.features.bot_user.display_name).toBe('statusbot');
  });
});
