import { z } from 'zod';
import { RESOLUTION_STAGES, SEVERITIES } from './incident.js';

export const TITLE_MAX = 255;
export const DESCRIPTION_MAX = 10_000;

const title = z.string().trim().min(1).max(TITLE_MAX);
const description = z.string().max(DESCRIPTION_MAX);
const severity = z.enum(SEVERITIES);
const stage = z.enum(RESOLUTION_STAGES);

export const createIncidentInput = z.strictObject({
  service_id: z.int().min(1),
  title,
  status: severity.default('minor'),
  description: description.default(''),
  resolution_stage: stage.default('investigating'),
});
export type CreateIncidentInput = z.output<typeof createIncidentInput>;

export const updateIncidentInput = z
  .strictObject({
    title: title.optional(),
    status: severity.optional(),
    description: description.optional(),
    resolution_stage: stage.optional(),
  })
  .superRefine((input, ctx) => {
    // A new update needs both its message and its stage.
    if (input.description !== undefined && input.resolution_stage === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['resolution_stage'],
        message: 'is required when description is sent',
      });
    }
    if (input.resolution_stage !== undefined && input.description === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['description'],
        message: 'is required when resolution_stage is sent',
      });
    }
  });
export type UpdateIncidentInput = z.output<typeof updateIncidentInput>;
