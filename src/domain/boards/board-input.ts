import { z } from 'zod';

export const MAX_TAGS = 50;
export const TAG_MAX_LENGTH = 64;

/** Tags as stored: trimmed, blanks and duplicates dropped, first occurrence kept. */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const tag of tags) {
    const trimmed = tag.trim();
    if (trimmed !== '') seen.add(trimmed);
  }
  return [...seen];
}

const tags = z
  .array(z.string().max(10_000))
  .transform(normalizeTags)
  .pipe(z.array(z.string().max(TAG_MAX_LENGTH)).max(MAX_TAGS));

/** The body of adding a service to a board, and of updating it: `tags` is optional in both. */
export const boardServiceInput = z.strictObject({ tags: tags.optional() });
export type BoardServiceInput = z.output<typeof boardServiceInput>;
