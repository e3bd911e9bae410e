import { z } from 'zod';

export const REPORT_DESCRIPTION_MAX = 500;
export const REPORT_COMPONENT_MAX = 100;

/** A report of a problem with a service: both fields optional, nothing else. */
export const userReportInput = z.strictObject({
  component: z.string().trim().max(REPORT_COMPONENT_MAX).optional(),
  description: z.string().max(REPORT_DESCRIPTION_MAX).optional(),
});
export type UserReportInput = z.output<typeof userReportInput>;
