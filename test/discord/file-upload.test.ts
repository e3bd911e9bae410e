import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, assertBuilt } from '../cli/run-cli.js';
import { startFakeDiscord } from '../fakes/fake-discord.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { TEST_ENGINE } from '../helpers/test-database.js';

const DIST = join(ROOT, 'dist', 'adapters', 'discord');

let fake: FakeDiscord | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

/** Runs `script` in a node process of its own (module load order is the point), from the project's root; its exit code and stderr. */
function node(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('close', (code) => ok({ code, stderr }));
  });
}

/*
 * Discord's REST client goes out through the process's shared undici
 * dispatcher, which is whichever copy of undici loaded first: in `serve`,
 * often statusbot's own. The load order is fixed per process, so each order
 * runs in a process of its own.
 */
describe.skipIf(TEST_ENGINE !== 'sqlite')('a file posted to Discord', () => {
  for (const first of ["statusbot's undici", "Discord's client"]) {
    it(`reaches the channel as a multipart upload when ${first} is loaded first`, async () => {
      assertBuilt();
      fake = await startFakeDiscord();
      const load = first === "statusbot's undici" ? `await import('undici');` : `await import('discord.js');`;
      const script = `
        ${load}
        const { Routes } = await import('discord.js');
        const { createDiscordRest, closeDiscordRest } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'client.js')).href)});
        const { fileMessage } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'render.js')).href)});
        const rest = createDiscordRest({ token: 'bot-token', apiUrl: process.env.DISCORD_API_URL }, { rejectOnRateLimit: true });
        const reply = { kind: 'file', comment: 'The postmortem', failed: 'no file', file: { filename: 'incident-7-postmortem.md', title: 'Postmortem', type: 'text/markdown', content: '# Postmortem of incident #7\\n\\nAll well.' } };
        const { message, files } = fileMessage(reply);
        await rest.post(Routes.channelMessages('222'), { body: message, files });
        closeDiscordRest(rest);`;
      const run = await node(script, { DISCORD_API_URL: fake.apiUrl });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const posted = fake.calls.filter((c) => c.method === 'POST' && c.path === '/channels/222/messages');
      expect(posted).toHaveLength(1);
      expect(posted[0]!.body).toMatchObject({ content: 'The postmortem', attachments: [{ id: 0, filename: 'incident-7-postmortem.md' }] });
      expect(posted[0]!.files).toEqual([
        {
          field: 'files[0]',
          filename: 'incident-7-postmortem.md',
          contentType: 'text/markdown; charset=utf-8',
          content: '# Postmortem of incident #7\n\nAll well.',
        },
      ]);
    });
  }
});
