import { z } from 'zod';
import { DESCRIPTION_MAX, TITLE_MAX } from '../incidents/incident-input.js';

/** Services one maintenance may cover. */
export const MAX_MAINTENANCE_SERVICES = 100;

const title = z.string().trim().min(1).max(TITLE_MAX);
const description = z.string().max(DESCRIPTION_MAX);
const time = z.iso
  .datetime({ offset: true, error: 'must be a time in ISO 8601, such as 2026-11-22T10:00:00.000Z' })
  .transform((t) => Date.parse(t))
  .meta({ format: 'date-time' });

export const createMaintenanceInput = z
  .strictObject({
    title,
    description: description.default(''),
    service_ids: z
      .array(z.int().min(1))
      .min(1)
      .max(MAX_MAINTENANCE_SERVICES)
      .transform((ids) => [...new Set(ids)])
      .describe('Ids of custom services of your company'),
    starts_at: time,
    ends_at: time,
  })
  .refine((m) => m.ends_at > m.starts_at, { error: 'must be after starts_at', path: ['ends_at'] });
export type CreateMaintenanceInput = z.output<typeof createMaintenanceInput>;

/** A status a company may set; `scheduled` and `in_progress` follow from the times. */
export const SETTABLE_STATUSES = ['cancelled', 'completed'] as const;

export const updateMaintenanceInput = z
  .strictObject({
    title: title.optional(),
    description: description.optional(),
    starts_at: time.optional(),
    ends_at: time.optional(),
    status: z.enum(SETTABLE_STATUSES).optional(),
  })
  .superRefine((input, ctx) => {
    // A status posts an update, whose text is `description`: it goes alone.
    if (input.status === undefined) return;
    for (const field of ['title', 'starts_at', 'ends_at'] as const) {
      if (input[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'cannot be sent with status' });
    }
  });
export type UpdateMaintenanceInput = z.output<typeof updateMaintenanceInput>;
