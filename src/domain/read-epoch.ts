import { changeMarker } from '../db/dialect.js';
import type { DomainContext } from './context.js';
import { periodAt } from './demo/demo-cycle.js';

/**
 * Changes whenever what a read could answer may have changed: any commit to
 * the database (from this process or another), or the clock entering a new
 * demo period (which changes demo services before anything is written).
 * Reads that depend on nothing else may be cached under it.
 */
export async function readEpoch(ctx: DomainContext): Promise<string> {
  return `${await changeMarker(ctx.db)}:${periodAt(ctx.clock.now().getTime())}`;
}
