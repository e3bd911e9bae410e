import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DomainContext } from '../context.js';
import { keptInMeta } from './database-id.js';

/** What a link in a subscriber's mail may do; a token made for one purpose is refused for the other. */
export type TokenPurpose = 'confirm' | 'unsubscribe';

/** A confirmation link works for 48 hours after its mail was sent. */
export const CONFIRM_TTL_MS = 48 * 60 * 60_000;
/** Every mail carries a fresh unsubscribe link; an old mail's still works for long. */
export const UNSUBSCRIBE_TTL_MS = 2 * 365 * 24 * 60 * 60_000;

export type TokenCheck =
  | { state: 'valid'; subscriberId: number }
  /** Signed by us, but past its expiry. */
  | { state: 'expired'; subscriberId: number }
  /** Malformed, altered, forged, or made for another purpose. */
  | { state: 'invalid' };

const SECRET_KEY = 'page_secret';
const FORMAT = /^(confirm|unsubscribe)\.([1-9][0-9]{0,15})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/;

/** The key of every page token: random, made once and kept in `meta` (see keptInMeta). */
const pageSecret = async (ctx: DomainContext): Promise<Buffer> =>
  Buffer.from(await keptInMeta(ctx, SECRET_KEY, () => randomBytes(32).toString('base64url')), 'base64url');

const mac = (key: Buffer, claims: string): string => createHmac('sha256', key).update(claims).digest('base64url');

/** `{purpose}.{subscriber id}.{expiry, epoch seconds in base 36}.{HMAC-SHA256 of the rest}`: URL-safe as it is. */
export async function signPageToken(ctx: DomainContext, token: { purpose: TokenPurpose; subscriberId: number; expiresAt: number }): Promise<string> {
  const claims = `${token.purpose}.${token.subscriberId}.${Math.ceil(token.expiresAt / 1000).toString(36)}`;
  return `${claims}.${mac(await pageSecret(ctx), claims)}`;
}

/** Checks the signature (in constant time) before anything the token says is believed, then its expiry on the clock. */
export async function verifyPageToken(ctx: DomainContext, token: string, purpose: TokenPurpose): Promise<TokenCheck> {
  const parts = FORMAT.exec(token);
  if (!parts || parts[1] !== purpose) return { state: 'invalid' };
  const claims = `${parts[1]}.${parts[2]}.${parts[3]}`;
  // Compared as text: decoding first would let the unused low bits of the last character vary.
  const given = Buffer.from(parts[4]!);
  const expected = Buffer.from(mac(await pageSecret(ctx), claims));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { state: 'invalid' };
  const subscriberId = Number(parts[2]);
  const expiresAt = parseInt(parts[3]!, 36) * 1000;
  return ctx.clock.now().getTime() < expiresAt ? { state: 'valid', subscriberId } : { state: 'expired', subscriberId };
}
