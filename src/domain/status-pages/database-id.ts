import { randomBytes } from 'node:crypto';
import type { DomainContext } from '../context.js';

const kept = new WeakMap<DomainContext['db'], Map<string, Promise<string>>>();

/**
 * A random value made once per database and kept in `meta` under `key`.
 * Inserted only where absent, then read back, so that replicas starting
 * together agree on the one that won; made on first use, so that a database
 * copied from another before it was made gets one of its own.
 */
export function keptInMeta(ctx: DomainContext, key: string, fresh: () => string): Promise<string> {
  const values = kept.get(ctx.db) ?? new Map<string, Promise<string>>();
  kept.set(ctx.db, values);
  let value = values.get(key);
  if (!value) {
    value = (async () => {
      await ctx.write((trx) =>
        trx
          .insertInto('meta')
          .values({ key, value: fresh() })
          .onConflict((oc) => oc.column('key').doNothing())
          .execute(),
      );
      return (await ctx.db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirstOrThrow()).value;
    })();
    // A failure (database down) is not kept: the next call tries again.
    value.catch(() => values.delete(key));
    values.set(key, value);
  }
  return value;
}

/**
 * This database's own random id: what names its items where ids from
 * another database could meet them (the Message-IDs of mail), since row ids
 * start at 1 in every new database. `statusbot db copy` keeps it.
 */
export const databaseId = (ctx: DomainContext): Promise<string> => keptInMeta(ctx, 'database_id', () => randomBytes(12).toString('base64url'));
