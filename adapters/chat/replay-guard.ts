import { createHash } from 'node:crypto';
import type { Logger } from '../../src/infrastructure/logger.js';
import type { ChatPlatform } from '../../src/domain/model/channel.js';
import type { DomainContext } from '../../src/domain/context.js';
import { takeSignedRequest } from '../../src/domain/chat/seen-requests.js';

/** Slack and Discord refuse a signature whose timestamp is more than 5 minutes from now. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;
/** Kept a minute beyond the window: replicas' clocks differ a little. */
const KEEP_MS = SIGNATURE_WINDOW_MS + 60_000;
const FORGET_EVERY_MS = 60_000;

/** A verified request: what the platform signed (timestamp and body), and who sent it, for the log. */
export interface SignedRequest {
  signed: readonly (string | Buffer)[];
  /** The signed timestamp, in seconds. */
  timestamp: number;
  /** What the log line names: path, address, workspace. Never the body. */
  about: Record<string, unknown>;
}

/** Replay protection behind a platform's signature check. */
export interface ReplayGuard {
  /** True the first time a signed request is seen by any replica; false, with a warning logged, for a repeat. */
  firstSight(request: SignedRequest): Promise<boolean>;
}

/**
 * A valid signature proves who sent a request, not that it is sent once: the
 * signed content is remembered in the database (shared by replicas, kept over
 * a restart) for as long as the signature is valid. Its digest is the key, not
 * the signature header: Slack's check reads the timestamp as a number and
 * Discord's reads the signature as hex of any case, so one signed request has
 * several spellings. Expired rows are forgotten at most once a minute.
 */
export function createReplayGuard(options: { ctx: DomainContext; platform: ChatPlatform; logger: Logger; now: () => number }): ReplayGuard {
  const { ctx, platform, logger } = options;
  let forgotAt = Number.NEGATIVE_INFINITY;
  return {
    async firstSight(request) {
      const hash = createHash('sha256');
      for (const part of request.signed) hash.update(part);
      const now = options.now();
      const forget = now - forgotAt >= FORGET_EVERY_MS;
      if (forget) forgotAt = now;
      const seen = { platform, digest: hash.digest('hex'), expiresAt: request.timestamp * 1000 + KEEP_MS };
      const first = await takeSignedRequest(ctx, seen, forget ? now : null);
      if (!first) logger.warn(`${platform}: refused a replayed request: its signature was already used; nothing was done`, request.about);
      return first;
    },
  };
}
