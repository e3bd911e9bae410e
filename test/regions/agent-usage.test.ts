import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';

const cli = (...args: string[]) => runCli(args, { cwd: process.cwd() });

describe('statusbot agent and key create --agent, used wrongly', () => {
  it('names what the agent lacks, with its usage', async () => {
    const noServer = await cli('agent', '--token', 't', '--region', 'eu');
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toMatch(/^statusbot: agent needs --server URL \(or STATUSBOT_SERVER\)/);
    expect(noServer.stderr).toContain('Usage: statusbot agent --server URL --token T --region NAME');
    const noToken = await cli('agent', '--server', 'http://127.0.0.1:9', '--region', 'eu');
    expect(noToken.stderr).toMatch(/^statusbot: agent needs --token T .*statusbot key create --agent --region NAME/);
    const noRegion = await cli('agent', '--server', 'http://127.0.0.1:9', '--token', 't');
    expect(noRegion.stderr).toMatch(/^statusbot: agent needs --region NAME/);
    const notUrl = await cli('agent', '--server', 'status.example', '--token', 't', '--region', 'eu');
    expect(notUrl.stderr).toMatch(/^statusbot: --server must be an http:\/\/ or https:\/\/ URL/);
  });

  it('asks key create --agent for its region, and --region for --agent', async () => {
    const noRegion = await cli('key', 'create', '--company', 'Acme', '--agent');
    expect(noRegion.code).toBe(2);
    expect(noRegion.stderr).toMatch(/^statusbot: key create --agent needs --region NAME/);
    const noAgent = await cli('key', 'create', '--company', 'Acme', '--region', 'eu');
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toMatch(/^statusbot: --region is for an agent token/);
    const help = await cli('key', 'create', '--help');
    expect(help.stdout).toContain('--agent');
    expect(help.stdout).toContain('--region NAME');
  });
});
