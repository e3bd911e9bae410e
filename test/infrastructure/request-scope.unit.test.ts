import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { StoppingError, requestScope } from '../../src/infrastructure/outbound.js';

const aborted = (signal: AbortSignal) => new Promise<unknown>((ok) => signal.addEventListener('abort', () => ok(signal.reason), { once: true }));

describe('requestScope', () => {
  it('fires at its timeout with a TimeoutError', async () => {
    const scope = requestScope(20);
    const reason = (await aborted(scope.signal)) as DOMException;
    expect(reason.name).toBe('TimeoutError');
    expect(reason.message).toBe('timeout after 0.02 s');
  });

  it("fires with a parent's reason, at once when the parent has already fired", () => {
    const stop = new AbortController();
    const delivery = new AbortController();
    const scope = requestScope(60_000, stop.signal, undefined, delivery.signal);
    expect(scope.signal.aborted).toBe(false);
    stop.abort(new StoppingError());
    expect(scope.signal.reason).toBeInstanceOf(StoppingError);
    scope.release();

    const late = requestScope(60_000, stop.signal);
    expect(late.signal.reason).toBeInstanceOf(StoppingError);
    late.release();
  });

  it('fires on abort, with the reason given', () => {
    const scope = requestScope(60_000);
    const reason = new Error('lease lost');
    scope.abort(reason);
    expect(scope.signal.reason).toBe(reason);
    scope.release();
  });

  it('once released, neither its timer nor its parent fires it', async () => {
    const stop = new AbortController();
    const scope = requestScope(10, stop.signal);
    scope.release();
    await new Promise((ok) => setTimeout(ok, 40));
    stop.abort(new StoppingError());
    expect(scope.signal.aborted).toBe(false);
  });

  it('adds one listener to a parent however many scopes follow it', () => {
    const stop = new AbortController();
    const scopes = Array.from({ length: 500 }, () => requestScope(60_000, stop.signal));
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    for (const scope of scopes.slice(1)) scope.release();
    stop.abort(new StoppingError());
    expect(scopes[0]!.signal.reason).toBeInstanceOf(StoppingError);
    expect(scopes.slice(1).every((scope) => !scope.signal.aborted)).toBe(true);
    scopes[0]!.release();
  });
});
