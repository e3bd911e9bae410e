import { z } from 'zod';
import { pageLimit } from '../page-limit.js';

/** A page of the audit trail: `before` an event's id (the cursor of `links.next`), at most `limit` events. */
export const auditPageInput = z.object({
  before: z
    .string()
    .regex(/^[1-9][0-9]{0,14}$/, 'must be the id of an audit event, such as 1234')
    .transform(Number)
    .optional()
    .describe('Only events older than this one (its id): the cursor of `links.next`'),
  limit: pageLimit('Events'),
});
export type AuditPageInput = z.output<typeof auditPageInput>;
