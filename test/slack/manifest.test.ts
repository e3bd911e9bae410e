import { readFileSync } from 'node:fs';
import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registerCommands } from '../../adapters/slack/commands.js';
import { startFakeSlack } from '../fakes/fake-slack.js';
import type { FakeSlack } from '../fakes/fake-slack.js';
import { ask, startSlackServer } from '../helpers/slack.js';
import type { TestServer } from '../helpers/test-server.js';
import { silentLogger } from '../../src/infrastructure/pino-logger.js';

const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
const commands = manifest.features.slash_commands as { command: string; url: string; description: string; usage_hint: string }[];

/** Slack's built-in commands: one of them in a manifest makes Slack refuse the whole list of slash commands. */
const SLACK_BUILT_INS = [
  '/status',
  '/me',
  '/join',
  '/away',
  '/dnd',
  '/shrug',
  '/remind',
  '/msg',
  '/feed',
  '/who',
  '/collapse',
  '/expand',
  '/leave',
  '/open',
  '/search',
  '/topic',
  '/mute',
  '/pro',
  '/shortcuts',
];

/** The commands the app registers listeners for, read off the registration itself. */
function handledCommands(): string[] {
  const names: string[] = [];
  const recorder = { command: (name: string) => names.push(name), action: () => {}, view: () => {} };
  registerCommands(recorder as unknown as App, { ctx: null as never, logger: silentLogger });
  return names;
}

describe('manifest.yml', () => {
  it("declares no Slack built-in command, and follows Slack's naming rules", () => {
    for (const { command } of commands) {
      expect(SLACK_BUILT_INS, command).not.toContain(command);
      expect(command, 'lowercase, a slash, no spaces, at most 32 characters').toMatch(/^\/[a-z0-9][a-z0-9_-]{0,30}$/);
      expect(command.length).toBeLessThanOrEqual(32);
    }
    expect(new Set(commands.map((c) => c.command)).size).toBe(commands.length);
  });

  it('declares exactly the commands the app handles', () => {
    expect(commands.map((c) => c.command).sort()).toEqual(handledCommands().sort());
    expect(handledCommands().sort()).toEqual(['/incident', '/service', '/statusbot']);
  });

  it('declares the slash commands at /slack/events, with descriptions and usage hints', () => {
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
    expect(manifest.oauth_config.scopes.bot).toEqual([
      'commands',
      'users:read',
      'chat:write',
      'chat:write.public',
      'channels:manage',
      'channels:history',
      'reactions:read',
      'files:write',
    ]);
  });

  it('subscribes to the reaction_added event at /slack/events, the one event the app handles', () => {
    expect(manifest.settings.event_subscriptions).toEqual({ request_url: 'https://YOUR-HOST/slack/events', bot_events: ['reaction_added'] });
  });

  it("has display information within Slack's limits", () => {
    const info = manifest.display_information;
    expect(info.name).toBe('statusbot');
    expect(info.description.length).toBeLessThanOrEqual(140);
    expect(info.long_description.length).toBeGreaterThanOrEqual(175);
    expect(info.long_description.length).toBeLessThanOrEqual(4000);
    expect(info.background_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(manifest.features.bot_user.display_name).toBe('statusbot');
  });
});

describe('every declared command, sent through the running app', () => {
  let fake: FakeSlack;
  let s: TestServer;
  beforeAll(async () => {
    fake = await startFakeSlack();
    s = await startSlackServer(fake);
  });
  afterAll(async () => {
    await s?.stop();
    await fake?.close();
  });

  it('is answered', async () => {
    for (const { command } of commands) {
      const { answer } = await ask(s, fake, { command: command as '/incident' | '/service' | '/statusbot', text: '' });
      expect(answer.response_type, command).toBe('ephemeral');
      expect(answer.text.length, command).toBeGreaterThan(0);
    }
  });
});
