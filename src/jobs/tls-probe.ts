import { isIP } from 'node:net';
import { connect, rootCertificates } from 'node:tls';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import { throwIfStopping } from '../infrastructure/outbound.js';
import { describeSocketError, endpointOf, guardFor } from './socket-connect.js';
import type { ProbeSettings } from './http-probe.js';

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
 * Opens a TLS connection to an https URL: down when the handshake fails, the
 * chain does not verify (or does not name the host), or the certificate
 * expires within `daysBeforeExpiry` days; the reason says which, and when.
 */
export async function probeTls(url: string, daysBeforeExpiry: number, settings: ProbeSettings): Promise<ProbeOutcome> {
  throwIfStopping(settings.stop);
  const { host, port } = endpointOf(url, 443);
  let guard: ReturnType<typeof guardFor>;
  try {
    guard = guardFor(host, settings.blockPrivateTargets);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const now = settings.now ?? Date.now;
  const outcome = await new Promise<ProbeOutcome>((resolve) => {
    const socket = connect({
      host,
      port,
      ...guard,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...(settings.trustedCertificates ? { ca: [...rootCertificates, ...settings.trustedCertificates] } : {}),
      // Verified below rather than refused in the handshake, so that the answer can say why and until when.
      rejectUnauthorized: false,
    });
    const finish = (result: ProbeOutcome) => {
      clearTimeout(timer);
      settings.stop?.removeEventListener('abort', onStop);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, reason: `timeout after ${settings.timeoutMs / 1000} s` }), settings.timeoutMs);
    const onStop = () => finish({ ok: false, reason: 'stopped' });
    settings.stop?.addEventListener('abort', onStop, { once: true });
    socket.once('error', (error) => finish({ ok: false, reason: describeSocketError(error, settings.timeoutMs) }));
    socket.once('secureConnect', () => {
      const validTo = new Date(socket.getPeerCertificate().valid_to).getTime();
      const day = Number.isNaN(validTo) ? '' : new Date(validTo).toISOString().slice(0, 10);
      if (!socket.authorized) {
        const code = String(socket.authorizationError ?? 'unknown');
        const reason = code === 'CERT_HAS_EXPIRED' ? `expired on ${day}` : (REASONS[code] ?? code);
        finish({ ok: false, reason: `certificate not valid: ${reason}` });
        return;
      }
      const left = validTo - now();
      if (left < daysBeforeExpiry * DAY_MS) {
        const days = Math.max(0, Math.ceil(left / DAY_MS));
        finish({ ok: false, reason: `certificate expires in ${days} ${days === 1 ? 'day' : 'days'} (${day})` });
        return;
      }
      finish({ ok: true });
    });
  });
  throwIfStopping(settings.stop);
  return outcome;
}
