import { z } from 'zod';

/** How many items a page of a list holds unless `limit` says otherwise, and at most. */
export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

/** The `limit` query parameter of every paged list: what it takes, and how a refusal reads. */
export const pageLimit = (items: string) =>
  z
    .string()
    .regex(/^[0-9]{1,4}$/, `must be a number from 1 to ${PAGE_MAX}`)
    .transform(Number)
    .pipe(z.int().min(1).max(PAGE_MAX))
    .optional()
    .describe(`${items} per page, 1 to ${PAGE_MAX} (default ${PAGE_DEFAULT})`);
