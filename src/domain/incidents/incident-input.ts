import { z } from 'zod';
import { pageLimit } from '../page-limit.js';
import { RESOLUTION_STAGES, SEVERITIES } from '../model/incident.js';

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

/** Where a page of the company's incidents begins: after the incident created at `createdAt` with id `id`, in the list's order. */
export interface IncidentCursor {
  createdAt: number;
  id: number;
}

const CURSOR = /^(0|[1-9][0-9]{0,14})_([1-9][0-9]{0,14})$/;

/** The cursor of `links.next`: the creation time (ms) and id of the last incident of the page before. */
export const incidentCursor = (c: IncidentCursor): string => `${c.createdAt}_${c.id}`;

/** The filters and page of `GET /incidents` (and `statusbot incidents list`), as query strings. */
export const incidentListInput = z.object({
  resolved: z.enum(['true', 'false']).optional().describe('`true`: only resolved incidents; `false`: only open ones'),
  service_id: z
    .string()
    .regex(/^[1-9][0-9]{0,14}$/, 'must be the id of a custom service of your company')
    .transform(Number)
    .optional()
    .describe('Only the incidents of this custom service of yours'),
  since: z.iso
    .datetime({ error: 'must be a time in ISO 8601 UTC, such as 2026-11-22T10:00:00.000Z' })
    .transform((t) => Date.parse(t))
    .optional()
    .describe('Only incidents created at this time or later, in ISO 8601 UTC (`2026-11-22T10:00:00.000Z`)'),
  limit: pageLimit('Incidents'),
  cursor: z
    .string()
    .regex(CURSOR, 'must be the cursor of a links.next, such as 1795860120000_42')
    .transform((c): IncidentCursor => {
      const [, createdAt, id] = CURSOR.exec(c)!;
      return { createdAt: Number(createdAt), id: Number(id) };
    })
    .optional()
    .describe('Where the page begins: the cursor that `links.next` carries'),
});
export type IncidentListInput = z.output<typeof incidentListInput>;
