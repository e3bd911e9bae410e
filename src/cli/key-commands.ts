import { createAgentKey } from '../domain/companies/agent-keys.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/companies/api-keys.js';
import type { ApiKeyInfo } from '../domain/companies/api-keys.js';
import { DomainError } from '../domain/errors.js';
import { CommandError, UsageError } from './cli-errors.js';
import type { Command, CommandInput } from './command.js';
import { mustExist, withContext } from './database-access.js';

const SHOWS_IDS = 'statusbot key list --company NAME shows the ids';

function companyOf(input: CommandInput, command: string): string {
  const company = input.string('company');
  if (!company) throw new UsageError(`${command} needs --company NAME`);
  return company;
}

export const keyCreateCommand: Command = {
  name: 'key create',
  synopsis: '--company NAME [--label L] [--db FILE|URL]',
  summary: "issue an API key, or a probe agent's token (printed once)",
  details: [
    'Prints the key alone on stdout (for scripts); statusbot keeps only its hash, so it is never shown again.',
    "With --agent --region NAME: a probe agent's token, for statusbot agent probing the company's monitors from that region; it opens",
    'the agent endpoints only, and key list, key revoke and agents list show it.',
  ].join('\n'),
  options: ['company', 'label', 'db'],
  moreOptions: ['agent', 'region'],
  async run(input) {
    const company = companyOf(input, 'key create');
    const region = input.string('region');
    if (input.flag('agent') && region === undefined) throw new UsageError('key create --agent needs --region NAME: the region the agent probes from');
    if (!input.flag('agent') && region !== undefined) throw new UsageError('--region is for an agent token: key create --agent --region NAME');
    mustExist(input.dbPath);
    return withContext(input.dbPath, async (ctx) => {
      if (region !== undefined) {
        const issued = await createAgentKey(ctx, company, region, input.string('label'));
        input.err(`New agent token ${issued.id} for ${issued.company} in region ${issued.region}, shown this once; statusbot keeps only its hash:`);
        input.out(issued.key);
        return 0;
      }
      const issued = await createApiKey(ctx, company, input.string('label'));
      input.err(`New API key ${issued.id} for ${issued.company} (${issued.label}), shown this once; statusbot keeps only its hash:`);
      input.out(issued.key);
      return 0;
    });
  },
};

const time = (d: Date | null) => (d ? d.toISOString() : 'never');

function keyLine(k: ApiKeyInfo): string {
  const revoked = k.revokedAt ? `\trevoked ${k.revokedAt.toISOString()}` : '';
  return `${k.id}\t${k.label}\t${k.prefix ? `${k.prefix}…` : '-'}\tcreated ${time(k.createdAt)}\tlast used ${time(k.lastUsedAt)}${revoked}`;
}

export const keyListCommand: Command = {
  name: 'key list',
  synopsis: '--company NAME [--db FILE|URL]',
  summary: "a company's keys: id, label, prefix, created, last used, revoked",
  details: [
    'One line per key, oldest first. The prefix is the start of a key statusbot issued ("-" for keys from a config).',
    'Last use is written by the servers at most once a minute.',
  ].join('\n'),
  options: ['company', 'db'],
  async run(input) {
    const company = companyOf(input, 'key list');
    mustExist(input.dbPath);
    return withContext(input.dbPath, async (ctx) => {
      const keys = await listApiKeys(ctx, company);
      if (keys.length === 0) input.out(`${company} has no API keys; statusbot key create --company NAME issues one`);
      for (const k of keys) input.out(keyLine(k));
      return 0;
    });
  },
};

export const keyRevokeCommand: Command = {
  name: 'key revoke',
  synopsis: 'ID [--db FILE|URL]',
  summary: 'revoke an API key: every server refuses it from its next request',
  details: `${SHOWS_IDS}. A revoked key stays listed, and a config that names it does not bring it back.`,
  options: ['db'],
  operands: { min: 1, max: 1 },
  async run(input) {
    const raw = input.operands[0]!;
    if (!/^\d{1,15}$/.test(raw)) throw new UsageError(`"${raw}" is not a key id; ${SHOWS_IDS}`);
    mustExist(input.dbPath);
    return withContext(input.dbPath, async (ctx) => {
      const { key, alreadyRevoked } = await revokeApiKey(ctx, Number(raw)).catch((error: unknown) => {
        throw error instanceof DomainError && error.code === 'not_found' ? new CommandError(`${error.message}; ${SHOWS_IDS}`) : error;
      });
      const which = `key ${key.id} of ${key.company} (${key.label})`;
      input.out(alreadyRevoked ? `${which} was already revoked on ${time(key.revokedAt)}` : `revoked ${which}: requests with it are refused from now on`);
      return 0;
    });
  },
};
