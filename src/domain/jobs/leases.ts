import type { DomainContext } from '../context.js';

/**
 * Takes the lease of a job slot for `holder` unless another holder's lease on
 * it is still running; true when this holder may run the slot. Two processes
 * on one database thus run each slot once.
 */
export async function takeLease(ctx: DomainContext, slot: string, holder: string, ttlMs: number): Promise<boolean> {
  const now = ctx.clock.now().getTime();
  const taken = await ctx.write((trx) => {
    return trx
      .insertInto('job_leases')
      .values({ slot, holder, expires_at: now + ttlMs })
      .onConflict((oc) =>
        oc
          .column('slot')
          .doUpdateSet({ holder, expires_at: now + ttlMs })
          .where((eb) => eb.or([eb('job_leases.expires_at', '<', now), eb('job_leases.holder', '=', holder)])),
      )
      .returning('slot')
      .executeTakeFirst();
  });
  return taken !== undefined;
}

/** Forgets leases that ended more than a day ago. */
export async function pruneLeases(ctx: DomainContext): Promise<number> {
  const before = ctx.clock.now().getTime() - 86_400_000;
  const result = await ctx.write((trx) => {
    return trx.deleteFrom('job_leases').where('expires_at', '<', before).executeTakeFirst();
  });
  return Number(result.numDeletedRows);
}
