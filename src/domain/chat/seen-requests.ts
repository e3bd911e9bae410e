import type { DomainContext } from '../context.js';
import type { ChatPlatform } from '../model/channel.js';

/** A signed chat request, known by a digest of what the platform signed, until its signature expires. */
export interface SeenRequest {
  platform: ChatPlatform;
  digest: string;
  /** Epoch milliseconds after which the platform's signature check refuses the request anyway. */
  expiresAt: number;
}

/**
 * Notes a signed request as taken; true the first time, false when any
 * process on this database took it before (a replay). The unique key decides,
 * so two replicas receiving the same request at once cannot both go on,
 * whatever their caches hold (no read shows these rows).
 * With `forgetBefore`, the platform's rows that expired before it go first.
 */
export async function takeSignedRequest(ctx: DomainContext, seen: SeenRequest, forgetBefore: number | null = null): Promise<boolean> {
  const inserted = await ctx.write(async (trx) => {
    if (forgetBefore !== null) {
      await trx.deleteFrom('seen_chat_requests').where('platform', '=', seen.platform).where('expires_at', '<', forgetBefore).execute();
    }
    return trx
      .insertInto('seen_chat_requests')
      .values({ platform: seen.platform, digest: seen.digest, expires_at: seen.expiresAt })
      .onConflict((oc) => oc.columns(['platform', 'digest']).doNothing())
      .returning('digest')
      .executeTakeFirst();
  });
  return inserted !== undefined;
}
