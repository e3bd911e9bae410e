import { createAgentKey } from '../domain/companies/agent-keys.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../domain/companies/api-keys.js';
import type { ApiKeyInfo } from '../domain/companies/api-keys.js';
import { DomainError } from '../domain/errors.js';
import { CommandError, UsageError } from './cli-errors.js';
import { SHOWS_IDS } from './command.js';
import type { CommandInput } from './command.js';
import { mustExist, withContext } from './database-access.js';

function companyOf(input: CommandInput, command: string): string {
  const company = input.string('company');
  if (!company) throw new UsageError(`${command} needs --company NAME`);
  return company;
}

/** `statusbot key create`, as commands.ts describes it. */
export async function runKeyCreate(input: CommandInput): Promise<number> {
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
}

const time = (d: Date | null) => (d ? d.toISOString() : 'never');

function keyLine(k: ApiKeyInfo): string {
  const revoked = k.revokedAt ? `\trevoked ${k.revokedAt.toISOString()}` : '';
  return `${k.id}\t${k.label}\t${k.prefix ? `${k.prefix}…` : '-'}\tcreated ${time(k.createdAt)}\tlast used ${time(k.lastUsedAt)}${revoked}`;
}

/** `statusbot key list`, as commands.ts describes it. */
export async function runKeyList(input: CommandInput): Promise<number> {
  const company = companyOf(input, 'key list');
  mustExist(input.dbPath);
  return withContext(input.dbPath, async (ctx) => {
    const keys = await listApiKeys(ctx, company);
    if (keys.length === 0) input.out(`${company} has no API keys; statusbot key create --company NAME issues one`);
    for (const k of keys) input.out(keyLine(k));
    return 0;
  });
}

/** `statusbot key revoke`, as commands.ts describes it. */
export async function runKeyRevoke(input: CommandInput): Promise<number> {
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
}
