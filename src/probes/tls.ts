import { isIP } from 'node:net';
import { connect, createSecureContext, rootCertificates } from 'node:tls';
import type { SecureContext, TLSSocket } from 'node:tls';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import { endpointOf, socketProbe } from './socket-connect.js';
import type { guardFor } from './socket-connect.js';
import { DEFAULT_DAYS_BEFORE_EXPIRY } from '../domain/monitors/monitor.js';
import type { ProbeKind } from './probe-kind.js';
import type { ProbeSettings } from './probe-settings.js';

const DAY_MS = 86_400_000;

/** OpenSSL's and Node's codes, as a user reads them. */
const REASONS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the chain does not lead to a trusted root',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the chain does not lead to a trusted root',
  CERT_NOT_YET_VALID: 'not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it does not name this host',
};

/**
 * One context for every probe trusting the same certificates: making it loads
 * the roots anew, which cost more than the handshake's own work.
 */
let defaultContext: SecureContext | undefined;
const contexts = new WeakMap<readonly string[], SecureContext>();
function contextFor(trusted: readonly string[] | undefined): SecureContext {
  if (!trusted) {
    defaultContext ??= createSecureContext();
    return defaultContext;
  }
  const known = contexts.get(trusted);
  if (known) return known;
  const made = createSecureContext({ ca: [...rootCertificates, ...trusted] });
  contexts.set(trusted, made);
  return made;
}

/**
 * Opens a TLS connection to an https URL: down when the handshake fails, the
 * chain does not verify (or does not name the host), or the certificate
 * expires within `daysBeforeExpiry` days; the reason says which, and when.
 */
function probeTls(url: string, daysBeforeExpiry: number, settings: ProbeSettings): Promise<ProbeOutcome> {
  const { host, port } = endpointOf(url, 443);
  const now = settings.now ?? Date.now;
  const open = (guard: ReturnType<typeof guardFor>) =>
    connect({
      host,
      port,
      ...guard,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      secureContext: contextFor(settings.trustedCertificates),
      // Verified below rather than refused in the handshake, so that the answer can say why and until when.
      rejectUnauthorized: false,
    });
  return socketProbe(host, settings, open, {
    event: 'secureConnect',
    judge: (socket: TLSSocket): ProbeOutcome => {
      const validTo = new Date(socket.getPeerCertificate().valid_to).getTime();
      const day = Number.isNaN(validTo) ? '' : new Date(validTo).toISOString().slice(0, 10);
      if (!socket.authorized) {
        const code = String(socket.authorizationError ?? 'unknown');
        const reason = code === 'CERT_HAS_EXPIRED' ? `expired on ${day}` : (REASONS[code] ?? code);
        return { ok: false, reason: `certificate not valid: ${reason}` };
      }
      const left = validTo - now();
      if (left < daysBeforeExpiry * DAY_MS) {
        const days = Math.max(0, Math.ceil(left / DAY_MS));
        return { ok: false, reason: `certificate expires in ${days} ${days === 1 ? 'day' : 'days'} (${day})` };
      }
      return { ok: true };
    },
  });
}

export const tls = {
  kind: 'tls',
  probe: (target, { settings }) => probeTls(target.url, target.daysBeforeExpiry ?? DEFAULT_DAYS_BEFORE_EXPIRY, settings),
} as const satisfies ProbeKind<'tls'>;
