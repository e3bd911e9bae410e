import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandDefinitions, registerDiscordCommands } from '../../adapters/discord/command-definitions.js';
import { verbOf } from '../../adapters/discord/commands.js';
import { readChatEnv } from '../../src/config/env.js';
import { FAKE_APPLICATION_ID, startFakeDiscord } from '../fakes/fake-discord.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { discordEnv } from '../helpers/discord.js';

let fake: FakeDiscord;
beforeAll(async () => {
  fake = await startFakeDiscord();
});
afterAll(async () => {
  await fake.close();
});

const env = () => readChatEnv(discordEnv(fake)).discord!;

/** "statusbot subscribe board" for every leaf of a command definition. */
const leaves = (command: any): string[] => {
  const walk = (prefix: string, options: any[] = []): string[] => {
    const nested = options.filter((o) => o.type === 1 || o.type === 2);
    if (nested.length === 0) return [prefix];
    return nested.flatMap((o) => walk(`${prefix} ${o.name}`, o.options));
  };
  return walk(command.name, command.options);
};

describe('registerDiscordCommands', () => {
  it('PUTs the command set in one guild', async () => {
    const result = await registerDiscordCommands({ env: env(), guildId: '111' });
    expect(result).toEqual({ count: 3, scope: 'in guild 111' });
    const [put] = fake.calls.filter((c) => c.method === 'PUT');
    expect(put!.path).toBe(`/applications/${FAKE_APPLICATION_ID}/guilds/111/commands`);
    expect(put!.headers.authorization).toBe('Bot fake-discord-bot-token');
    expect(put!.body.flatMap(leaves)).toEqual([
      'incident new',
      'incident update',
      'incident resolve',
      'incident list',
      'incident show',
      'incident lead',
      'incident room',
      'incident note',
      'incident postmortem',
      'status',
      'statusbot help',
      'statusbot status',
      'statusbot report',
      'statusbot link',
      'statusbot subscribe incidents',
      'statusbot subscribe service',
      'statusbot subscribe monitor',
      'statusbot subscribe board',
      'statusbot unsubscribe incidents',
      'statusbot unsubscribe service',
      'statusbot unsubscribe monitor',
      'statusbot unsubscribe board',
      'statusbot subscriptions',
      'statusbot maintenance',
    ]);
    const status = put!.body.find((c: any) => c.name === 'status');
    expect(status.options[0]).toMatchObject({ name: 'service', type: 3, required: true, autocomplete: true });
    expect(put!.body.every((c: any) => c.contexts?.length === 1 && c.contexts[0] === 0)).toBe(true);
  });

  it('PUTs globally without a guild', async () => {
    expect(await registerDiscordCommands({ env: env(), guildId: null })).toEqual({ count: 3, scope: 'globally' });
    expect(fake.calls.at(-1)!.path).toBe(`/applications/${FAKE_APPLICATION_ID}/commands`);
  });
});

describe('the declared commands', () => {
  /** An interaction's data for one leaf, with a value for every option it declares. */
  function dataFor(command: any, path: string[]): any {
    const fill = (options: any[] = []) => options.map((o) => ({ name: o.name, type: o.type, value: o.type === 4 ? 7 : o.type === 5 ? true : 'acme-api' }));
    const nest = (options: any[] = [], rest: string[]): any[] => {
      if (rest.length === 0) return fill(options);
      const sub = options.find((o) => o.name === rest[0]);
      return [{ name: sub.name, type: sub.type, options: nest(sub.options, rest.slice(1)) }];
    };
    return { id: '1', name: command.name, type: 1, options: nest(command.options, path) };
  }

  it('are each handled: every leaf reads as a verb, none as unknown or as usage', () => {
    for (const command of commandDefinitions()) {
      for (const leaf of leaves(command)) {
        const call = verbOf(dataFor(command, leaf.split(' ').slice(1)));
        expect(call.verb, leaf).not.toBe('unknown');
        expect(call.verb, leaf).not.toBe('usage');
      }
    }
  });
});
