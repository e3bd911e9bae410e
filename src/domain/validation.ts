import type { z } from 'zod';
import { DomainError } from './errors.js';
import type { FieldIssue } from './errors.js';

type ZodIssue = z.core.$ZodIssue;

function describe(issue: ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return valueAt(input, issue.path) === undefined ? 'is required' : `must be ${article(issue.expected)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'string'
        ? Number(issue.minimum) <= 1
          ? 'must not be blank'
          : `must be at least ${issue.minimum} characters`
        : `must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `must have at most ${issue.maximum} entries`;
      return `must be at most ${issue.maximum}`;
    case 'unrecognized_keys':
      return `is not a known field`;
    default:
      return issue.message;
  }
}

function article(expected: string): string {
  if (expected === 'int') return 'an integer';
  if (expected === 'array') return 'an array';
  if (expected === 'object') return 'an object';
  return `a ${expected}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** The field path as users read it: `tags[3]`, `service_id`. */
export function fieldName(path: readonly (string | number)[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${key}` : key), '');
}

function toFieldIssues(error: z.ZodError, input: unknown, location: 'body' | 'query', subject: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    const base = issue.path.filter((k): k is string | number => typeof k !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...base, key];
        issues.push({ path, message: `${fieldName(path)} is not a known field`, location });
      }
      continue;
    }
    const name = fieldName(base);
    const message = describe(issue, input);
    issues.push({ path: base, message: name ? `${name} ${message}` : `the ${subject} ${message}`, location });
  }
  return issues;
}

/**
 * How deep arrays and objects may nest in any input, the input itself being
 * the first level: far more than any schema needs, and the bound that keeps a
 * hostile body from costing more than one pass over it.
 */
export const MAX_INPUT_DEPTH = 32;

/** The one way raw input from any front enters the domain: parsed, or an invalid_input error naming each field. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  location: 'body' | 'query' = 'body',
  /** What the input as a whole is called in messages. */
  subject: string = location,
): z.output<S> {
  const { tooDeep, nul } = inspect(input);
  if (tooDeep) {
    const message = `the ${subject} nests arrays and objects more than ${MAX_INPUT_DEPTH} levels deep`;
    throw new DomainError('invalid_input', message, [{ path: tooDeep, message, location }]);
  }
  if (nul.length > 0) {
    const issues = nul.map((path) => ({ path, message: `${fieldName(path) || `the ${subject}`} must not contain the NUL character`, location }));
    throw new DomainError('invalid_input', issues.map((i) => i.message).join('; '), issues);
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = toFieldIssues(result.error, input, location, subject);
  throw new DomainError('invalid_input', issues.map((i) => i.message).join('; '), issues);
}

type Path = (string | number)[];

/** A value still to look at, or a key found holding a NUL character. */
type Pending = { path: Path; value: unknown; nulKey?: false } | { path: Path; nulKey: true };

/** Texts and what may hold them: numbers, booleans and null are passed over without a path made for each. */
const mayHold = (value: unknown): boolean => typeof value === 'string' || (value !== null && typeof value === 'object');

/**
 * One pass over the input, with a stack of its own rather than the call stack
 * (a body may nest far deeper than the call stack allows): the first array or
 * object beyond MAX_INPUT_DEPTH, else the paths of the texts (values or keys)
 * that hold a NUL character, which no database column stores (PostgreSQL
 * refuses it), in the order they appear.
 */
function inspect(input: unknown): { tooDeep: Path | null; nul: Path[] } {
  const nul: Path[] = [];
  const pending: Pending[] = [{ path: [], value: input }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.nulKey) {
      nul.push(next.path);
      continue;
    }
    const { path, value } = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) nul.push(path);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_INPUT_DEPTH) return { tooDeep: path, nul };
    // Pushed last to first, so that they are looked at first to last.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) if (mayHold(value[i])) pending.push({ path: [...path, i], value: value[i] });
      continue;
    }
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i]!;
      if (key.includes('\u0000')) pending.push({ path: [...path, key], nulKey: true });
      else if (mayHold(item)) pending.push({ path: [...path, key], value: item });
    }
  }
  return { tooDeep: null, nul };
}
