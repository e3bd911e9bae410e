import { changeMarker } from '../db/dialect.js';
import type { DomainContext } from './context.js';
import { periodAt } from './model/demo-cycle.js';

/** The last epoch made, with its parts: every cached read asks, and the parts seldom move. */
let last = { marker: '', period: Number.NaN, epoch: '' };

/**
 * Changes whenever what a read could answer may have changed: any commit to
 * the database (from this process or another), or the clock entering a new
 * demo period (which changes demo services before anything is written).
 * Reads that depend on nothing else may be cached under it. Known at once:
 * a cached read answers without waiting for anything.
 */
export function readEpoch(ctx: DomainContext): string {
  const marker = changeMarker(ctx.db);
  const period = periodAt(ctx.clock.now().getTime());
  if (marker !== last.marker || period !== last.period) last = { marker, period, epoch: `${marker}:${period}` };
  return last.epoch;
}
