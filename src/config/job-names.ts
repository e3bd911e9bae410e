/** The jobs serve runs, by name, in the order declared (jobs.ts has one per name): what the config and `jobs run` accept. */
export const JOB_NAMES = ['monitors', 'feeds', 'demo-cycle', 'maintenances', 'digests', 'user-reports', 'retention', 'outbox-purge'] as const;

export type JobName = (typeof JOB_NAMES)[number];

export const DEMO_JOB: JobName = 'demo-cycle';
