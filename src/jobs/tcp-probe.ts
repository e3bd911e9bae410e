import { connect } from 'node:net';
import type { ProbeOutcome } from '../domain/monitors/probe-results.js';
import { throwIfStopping } from '../infrastructure/outbound.js';
import { describeSocketError, endpointOf, guardFor } from './socket-connect.js';
import type { ProbeSettings } from './http-probe.js';

/** Up when a TCP connection to `tcp://host:port` opens within the timeout; nothing is sent. */
export async function probeTcp(url: string, settings: ProbeSettings): Promise<ProbeOutcome> {
  throwIfStopping(settings.stop);
  const { host, port } = endpointOf(url, 0);
  let guard: ReturnType<typeof guardFor>;
  try {
    guard = guardFor(host, settings.blockPrivateTargets);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const outcome = await new Promise<ProbeOutcome>((resolve) => {
    const socket = connect({ host, port, ...guard });
    const finish = (result: ProbeOutcome) => {
      clearTimeout(timer);
      settings.stop?.removeEventListener('abort', onStop);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, reason: `timeout after ${settings.timeoutMs / 1000} s` }), settings.timeoutMs);
    const onStop = () => finish({ ok: false, reason: 'stopped' });
    settings.stop?.addEventListener('abort', onStop, { once: true });
    socket.once('connect', () => finish({ ok: true }));
    socket.once('error', (error) => finish({ ok: false, reason: describeSocketError(error, settings.timeoutMs) }));
  });
  throwIfStopping(settings.stop);
  return outcome;
}
