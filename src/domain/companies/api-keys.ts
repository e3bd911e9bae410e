import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { changeMarker } from '../../db/dialect.js';
import { prepared } from '../../db/prepared.js';
import type { CompaniesTable, Database } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { DomainError, invalidInput } from '../errors.js';
import type { Company } from '../model/company.js';
import { parseNotifyOn } from '../model/company.js';
import { created as createdFields, recordAudit } from '../audit/audit-trail.js';

/** Keys are stored as SHA-256 hex digests; the plaintext exists only in the caller's hands. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export const generateApiKey = (): string => `sb_${randomBytes(24).toString('base64url')}`;

/** How much of a key statusbot issued is kept to tell it apart in lists: `sb_` and 5 of its 32 random characters. */
export const KEY_PREFIX_LENGTH = 8;
const KEY_MEMO_MAX = 10_000;
/** A key's last use is written at most this often (one transaction for all keys used meanwhile). */
export const KEY_USE_WRITE_MS = 60_000;
const LABEL_MAX = 64;

/** A key as lists show it: never the key itself. */
export interface ApiKeyInfo {
  id: number;
  company: string;
  label: string;
  /** The key's first characters when statusbot issued it; null for keys from a config. */
  prefix: string | null;
  createdAt: Date;
  /** As last written: at most a minute behind the servers' memory. */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const unauthorized = () => new DomainError('unauthorized', 'The API key is missing or invalid');

const companyByKeyHash = prepared<
  'hash',
  Pick<Selectable<CompaniesTable>, 'id' | 'name' | 'plan' | 'notify_on'> & { key_id: number; agent_region: string | null }
>((db, p) =>
  db
    .selectFrom('api_keys')
    .innerJoin('companies', 'companies.id', 'api_keys.company_id')
    .select(['companies.id', 'companies.name', 'companies.plan', 'companies.notify_on', 'api_keys.id as key_id', 'api_keys.agent_region'])
    .where('api_keys.key_hash', '=', p.hash)
    .where('api_keys.revoked_at', 'is', null),
);

/** The company an API key acts for; `unauthorized` for an unknown or revoked key. */
export async function authenticate(ctx: DomainContext, key: string): Promise<Company> {
  return (await authenticateKey(ctx, key)).company;
}

/** The company an API key acts for, and the key's id; a probe agent's token is refused (it opens the agent's endpoints only). */
export async function authenticateKey(ctx: DomainContext, key: string): Promise<{ company: Company; keyId: number }> {
  const found = await lookUpKey(ctx, key);
  admitKey(found, 'company');
  return found;
}

/** Who an operation admits: a company's API key, or a probe agent's token. */
export type KeyKind = 'company' | 'agent';

/**
 * Refuses (`unauthorized`) a key of the other kind than the operation admits:
 * a probe agent's token opens the agent's operations and nothing else, and an
 * API key opens none of them.
 */
export function admitKey(found: { agentRegion: string | null }, kind: KeyKind): void {
  if (kind === 'company' && found.agentRegion !== null) throw new DomainError('unauthorized', "This is a probe agent's token: it opens only /api/v2/agent/…");
  if (kind === 'agent' && found.agentRegion === null) {
    throw new DomainError('unauthorized', 'An API key opens no agent endpoint: statusbot key create --agent issues a token');
  }
}

/**
 * The company a key or a probe agent's token acts for, the key's id (who the
 * key is, without the key) and the agent's region (null for an API key).
 * A key found once is remembered while keys and companies do not change: such
 * a commit (a revocation among them, from any process) makes the next request
 * ask again.
 */
export async function lookUpKey(ctx: DomainContext, key: string): Promise<{ company: Company; keyId: number; agentRegion: string | null }> {
  if (key.length === 0 || key.length > 512) throw unauthorized();
  // Taken before reading, so that a revocation committed meanwhile makes the entry stale at once.
  const epoch = changeMarker(ctx.db, ['api_keys', 'companies']);
  const processState = ctx.processState.apiKeys.get(key);
  if (processState && processState.epoch === epoch) {
    noteUse(ctx, processState.keyId);
    return processState;
  }
  // Remembered by the key itself: hashing it costs more than the rest of a cached read.
  const hash = processState?.hash ?? hashApiKey(key);
  const row = (await companyByKeyHash(ctx.db, { hash }))[0];
  if (!row) {
    ctx.processState.apiKeys.delete(key);
    throw unauthorized();
  }
  const company: Company = { id: row.id, name: row.name, plan: row.plan, notifyOn: parseNotifyOn(row.notify_on) };
  if (ctx.processState.apiKeys.size >= KEY_MEMO_MAX) ctx.processState.apiKeys.clear();
  const agentRegion = row.agent_region ?? null;
  ctx.processState.apiKeys.set(key, { company, keyId: row.key_id, agentRegion, hash, epoch });
  noteUse(ctx, row.key_id);
  return { company, keyId: row.key_id, agentRegion };
}

/** Uses of keys not yet written, per context (one per process). */
interface KeyUses {
  /** Key id → when it was last used. */
  pending: Map<number, number>;
  timer: NodeJS.Timeout | null;
  writing: Promise<void> | null;
}
// Keyed by the processState: every request's context (see DomainContext.actingAs) shares it.
const uses = new WeakMap<DomainContext['processState'], KeyUses>();

/**
 * Remembers that a key was used now. The API answers tens of thousands of
 * requests a second, so a request never writes: a minute after the first use
 * not yet written, one transaction writes every key used meanwhile.
 */
function noteUse(ctx: DomainContext, keyId: number): void {
  let state = uses.get(ctx.processState);
  if (!state) {
    state = { pending: new Map(), timer: null, writing: null };
    uses.set(ctx.processState, state);
  }
  state.pending.set(keyId, ctx.clock.now().getTime());
  if (state.timer) return;
  const timer = setTimeout(() => {
    if (state.timer === timer) state.timer = null;
    void writeKeyUses(ctx);
  }, KEY_USE_WRITE_MS);
  // A process with nothing else to do does not wait a minute to end (a closing server may write them first).
  timer.unref();
  state.timer = timer;
}

/**
 * Writes the key uses remembered since the last write, in one transaction;
 * the timer of `noteUse` runs it, and a server that closes may, so as not to
 * lose the last minute. A database that is away (or closed) keeps them for the next.
 */
export async function writeKeyUses(ctx: DomainContext): Promise<void> {
  const state = uses.get(ctx.processState);
  if (!state) return;
  // One write at a time; a call while one is under way waits for it (and writes what came since).
  while (state.writing) await state.writing;
  if (state.pending.size === 0) return;
  const batch = [...state.pending];
  state.pending.clear();
  const write = ctx
    .write(async (trx) => {
      for (const [id, at] of batch) {
        await trx
          .updateTable('api_keys')
          .set({ last_used_at: at })
          .where('id', '=', id)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
          .execute();
      }
    })
    .catch(() => {
      for (const [id, at] of batch) if (!state.pending.has(id)) state.pending.set(id, at);
    });
  state.writing = write;
  await write;
  if (state.writing === write) state.writing = null;
}

/** The company of this name; not_found naming the companies there are. */
export async function companyNamed(trx: Kysely<Database>, name: string): Promise<{ id: number; name: string }> {
  const found = await trx.selectFrom('companies').select(['id', 'name']).where('name', '=', name).executeTakeFirst();
  if (found) return found;
  const names = (await trx.selectFrom('companies').select('name').orderBy('name').limit(20).execute()).map((c) => c.name);
  const known = names.length === 0 ? 'there are no companies yet' : `the companies are ${names.join(', ')}`;
  throw new DomainError('not_found', `no company is named "${name}"; ${known}`);
}

function labelOf(raw: string): string {
  const label = raw.trim();
  if (label.length === 0) throw invalidInput(['label'], 'the label must not be blank');
  if (label.length > LABEL_MAX) throw invalidInput(['label'], `the label must be at most ${LABEL_MAX} characters`);
  if (/\p{Cc}/u.test(label)) throw invalidInput(['label'], 'the label must be on one line, without control characters');
  return label;
}

/** Issues a new key for a company by name; the plaintext is returned once and never stored. */
export async function createApiKey(
  ctx: DomainContext,
  companyName: string,
  label = 'cli',
  agentRegion: string | null = null,
): Promise<{ key: string; id: number; company: string; label: string }> {
  const key = generateApiKey();
  const cleanLabel = labelOf(label);
  const created = await ctx.write(async (trx) => {
    const company = await companyNamed(trx, companyName);
    const { id } = await trx
      .insertInto('api_keys')
      .values({
        company_id: company.id,
        key_hash: hashApiKey(key),
        key_prefix: key.slice(0, KEY_PREFIX_LENGTH),
        label: cleanLabel,
        agent_region: agentRegion,
        created_at: ctx.clock.now().getTime(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordAudit(ctx, trx, {
      companyId: company.id,
      action: 'api_key.create',
      targetType: 'api_key',
      targetId: id,
      changes: createdFields({ label: cleanLabel, prefix: key.slice(0, KEY_PREFIX_LENGTH), ...(agentRegion === null ? {} : { agent_region: agentRegion }) }),
    });
    return { id, company: company.name };
  });
  return { key, label: cleanLabel, ...created };
}

/** Labels a key that statusbot issued through a config (the demo company's), and keeps its prefix. */
export async function describeIssuedKey(ctx: DomainContext, key: string, label: string): Promise<void> {
  await ctx.write((trx) =>
    trx
      .updateTable('api_keys')
      .set({ label: labelOf(label), key_prefix: key.slice(0, KEY_PREFIX_LENGTH) })
      .where('key_hash', '=', hashApiKey(key))
      .execute(),
  );
}

const keyColumns = ['api_keys.id', 'companies.name as company', 'label', 'key_prefix', 'api_keys.created_at', 'last_used_at', 'revoked_at'] as const;

function infoOf(row: {
  id: number;
  company: string;
  label: string;
  key_prefix: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}): ApiKeyInfo {
  const date = (ms: number | null) => (ms === null ? null : new Date(Number(ms)));
  return {
    id: Number(row.id),
    company: row.company,
    label: row.label,
    prefix: row.key_prefix,
    createdAt: new Date(Number(row.created_at)),
    lastUsedAt: date(row.last_used_at),
    revokedAt: date(row.revoked_at),
  };
}

/** A company's keys, oldest first, revoked ones included. */
export async function listApiKeys(ctx: DomainContext, companyName: string): Promise<ApiKeyInfo[]> {
  const company = await companyNamed(ctx.db, companyName);
  const rows = await ctx.db
    .selectFrom('api_keys')
    .innerJoin('companies', 'companies.id', 'api_keys.company_id')
    .select(keyColumns)
    .where('api_keys.company_id', '=', company.id)
    .orderBy('api_keys.id')
    .execute();
  return rows.map(infoOf);
}

/**
 * Revokes a key by id: every server refuses it from its next request (the
 * commit moves each process's change marker, which its memory of keys holds to).
 * Revoking a revoked key changes nothing.
 */
export async function revokeApiKey(ctx: DomainContext, id: number): Promise<{ key: ApiKeyInfo; alreadyRevoked: boolean }> {
  const now = ctx.clock.now().getTime();
  return ctx.write(async (trx) => {
    const find = () =>
      trx
        .selectFrom('api_keys')
        .innerJoin('companies', 'companies.id', 'api_keys.company_id')
        .select(keyColumns)
        .where('api_keys.id', '=', id)
        .executeTakeFirst();
    const before = await find();
    if (!before) throw new DomainError('not_found', `there is no API key ${id}`);
    if (before.revoked_at !== null) return { key: infoOf(before), alreadyRevoked: true };
    await trx.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).execute();
    const owner = await trx.selectFrom('api_keys').select('company_id').where('id', '=', id).executeTakeFirstOrThrow();
    await recordAudit(ctx, trx, {
      companyId: Number(owner.company_id),
      action: 'api_key.revoke',
      targetType: 'api_key',
      targetId: id,
      changes: { revoked_at: { from: null, to: new Date(now).toISOString() } },
    });
    return { key: infoOf({ ...before, revoked_at: now }), alreadyRevoked: false };
  });
}
