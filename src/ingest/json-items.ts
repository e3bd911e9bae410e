import type { z } from 'zod';

/**
 * Reads a feed's list item by item: the items its schema accepts, in order,
 * and one line in `skipped` for each it does not (`current: active_incidents[2]
 * (id "881"): notes[0].date_created should be a date, got "soon"`). One bad item
 * must not cost the vendor the rest of its document.
 */
export function readItems<S extends z.ZodType>(
  list: readonly unknown[],
  where: string,
  schema: S,
  skipped: string[],
): z.output<S>[] {
  return check(list, where, schema, skipped).map(({ data }) => data);
}

/** The same check, keeping the items as they were written: for a document handed on to another reader. */
export function keepItems(list: readonly unknown[], where: string, schema: z.ZodType, skipped: string[]): unknown[] {
  return check(list, where, schema, skipped).map(({ item }) => item);
}

function check<S extends z.ZodType>(list: readonly unknown[], where: string, schema: S, skipped: string[]): { item: unknown; data: z.output<S> }[] {
  const read: { item: unknown; data: z.output<S> }[] = [];
  list.forEach((item, index) => {
    const result = schema.safeParse(item);
    if (result.success) read.push({ item, data: result.data });
    else skipped.push(`${where}[${index}]${named(item)}: ${describe(result.error.issues[0], item)}`);
  });
  return read;
}

function named(item: unknown): string {
  if (item === null || typeof item !== 'object') return '';
  const id = (item as Record<string, unknown>).id ?? (item as Record<string, unknown>)._id;
  return typeof id === 'string' || typeof id === 'number' ? ` (id ${JSON.stringify(String(id))})` : '';
}

function describe(issue: z.core.$ZodIssue | undefined, item: unknown): string {
  if (issue === undefined) return 'the item is unreadable';
  const path = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('').replace(/^\./, '');
  return `${path === '' ? 'the item' : path} ${what(issue, valueAt(item, issue.path))}`;
}

function what(issue: z.core.$ZodIssue, value: unknown): string {
  if (value === undefined) return 'is missing';
  if (issue.code === 'invalid_type') return `should be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`;
  return issue.message;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
