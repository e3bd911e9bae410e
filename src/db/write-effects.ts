import type { CompiledQuery, QueryId } from 'kysely';

/*
 * Which tables a statement writes, and what that means for the caches of
 * this process and of the others: declared here once, for every engine (the
 * change triggers, the counting of this process's writes, and the writer,
 * which need not wait for other processes to hear of a commit none of them
 * will hear of).
 */

/** The tables whose rows an authenticated key is remembered with. */
export const KEY_TABLES: readonly string[] = ['api_keys', 'companies'];

/**
 * Tables no read shows (nothing a replica caches comes from them): writing
 * them moves no replica's caches, and has no change trigger. A transaction
 * that writes only these (or nothing) is told to no other process, so its
 * writer does not wait for them to hear of it.
 */
export const UNNOTED_TABLES: readonly string[] = ['meta', 'job_leases', 'seen_chat_requests', 'kysely_migration', 'kysely_migration_lock'];

/**
 * Tables of delivery's bookkeeping, which no cached read shows either, but
 * written all the time while notifications drain: their commits are told
 * apart (see the change triggers), so that replicas say they saw them (a
 * writer that waits is answered) and keep their caches. Were they told as
 * other changes, every claim and mark of a delivery would make every replica
 * render its pages and cached reads again, just when an incident brings readers.
 */
export const UNCACHED_TABLES: readonly string[] = ['outbox', 'notify_messages', 'chat_messages'];

/** What a statement means for this process's read caches and for what authenticated keys are remembered under (see `keysMarker`). */
export type WriteEffect =
  | 'none'
  | /** writes a table a read may show */ 'writes'
  | /** writes API keys or companies */ 'writesKeys'
  | 'begin'
  | 'commit'
  | 'rollback';

// `for update` / `for no key update` lock rows; they write nothing. An upsert's `on conflict … do update set` writes
// the table its `insert into` names, not one called "set".
export const WRITE = /(?<!\b(?:for\s+(?:no\s+key\s+)?|do\s+))\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+"?(\w+)"?/gi;

const EFFECTS_REMEMBERED = 2_000;
const effects = new Map<string, { effect: WriteEffect; told: boolean }>();

function classify(text: string): { effect: WriteEffect; told: boolean } {
  let known = effects.get(text);
  if (known === undefined) {
    let effect: WriteEffect;
    let told = false;
    if (/^\s*(begin|start\s+transaction)\b/i.test(text)) effect = 'begin';
    else if (/^\s*(commit|end)\s*;?\s*$/i.test(text)) effect = 'commit';
    else if (/^\s*rollback\s*;?\s*$/i.test(text)) effect = 'rollback';
    else {
      const tables = [...text.matchAll(WRITE)].map((m) => m[1]!.toLowerCase());
      told = tables.some((t) => !UNNOTED_TABLES.includes(t));
      if (tables.some((t) => KEY_TABLES.includes(t))) effect = 'writesKeys';
      else effect = tables.some((t) => !UNNOTED_TABLES.includes(t) && !UNCACHED_TABLES.includes(t)) ? 'writes' : 'none';
    }
    known = { effect, told };
    if (effects.size < EFFECTS_REMEMBERED) effects.set(text, known);
  }
  return known;
}

/** What the statement `text` means for read caches (see WriteEffect). */
export const writeEffectOf = (text: string): WriteEffect => classify(text).effect;

/** Whether the statement `text` writes a table whose commits other processes hear of (any but UNNOTED_TABLES). */
export const toldToOthers = (text: string): boolean => classify(text).told;

/**
 * Whether a statement that may write can change what a cached read shows
 * (see writeEffectOf). Transaction control and writes of UNCACHED_TABLES and
 * UNNOTED_TABLES alone cannot; a statement that names no table it writes is
 * taken to.
 */
export function movesCachedReads(text: string): boolean {
  const effect = writeEffectOf(text);
  if (effect === 'writes' || effect === 'writesKeys') return true;
  if (effect !== 'none' || /^\s*(savepoint|release)\b/i.test(text)) return false;
  return text.match(WRITE) === null;
}

/** The texts of statements compiled once and run many times, by their query id (see prepared). */
const texts = new WeakMap<QueryId, string>();

/** Remembers the text of a compiled statement, for what runs it later to tell what it writes. */
export function knowStatement(compiled: CompiledQuery): void {
  texts.set(compiled.queryId, compiled.sql);
}

/** The text of a statement compiled before it ran (see knowStatement); undefined when not known. */
export const statementText = (queryId: QueryId): string | undefined => texts.get(queryId);
