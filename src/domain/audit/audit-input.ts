import { z } from 'zod';

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

/** A page of the audit trail: `before` an event's id (the cursor of `links.next`), at most `limit` events. */
export const auditPageInput = z.object({
  before: z
    .string()
    .regex(/^[1-9][0-9]{0,14}$/, 'must be the id of an audit event, such as 1234')
    .transform(Number)
    .optional()
    .describe('Only events older than this one (its id): the cursor of `links.next`'),
  limit: z
    .string()
    .regex(/^[0-9]{1,4}$/, `must be a number from 1 to ${AUDIT_PAGE_MAX}`)
    .transform(Number)
    .pipe(z.int().min(1).max(AUDIT_PAGE_MAX))
    .optional()
    .describe(`Events per page, 1 to ${AUDIT_PAGE_MAX} (default ${AUDIT_PAGE_DEFAULT})`),
});
export type AuditPageInput = z.output<typeof auditPageInput>;
