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

/** The one way raw input from any front enters the domain: parsed, or an invalid_input error naming each field. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  location: 'body' | 'query' = 'body',
  /** What the input as a whole is called in messages. */
  subject: string = location,
): z.output<S> {
  const nul = nulCharacters(input);
  if (nul.length > 0) {
    const issues = nul.map((path) => ({ path, message: `${fieldName(path) || `the ${subject}`} must not contain the NUL character`, location }));
    throw new DomainError('invalid_input', issues.map((i) => i.message).join('; '), issues);
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = toFieldIssues(result.error, input, location, subject);
  throw new DomainError('invalid_input', issues.map((i) => i.message).join('; '), issues);
}

/** Paths of the texts (values or keys) that hold a NUL character, which no database column stores (PostgreSQL refuses it). */
function nulCharacters(input: unknown, path: (string | number)[] = [], found: (string | number)[][] = []): (string | number)[][] {
  if (typeof input === 'string') {
    if (input.includes('\u0000')) found.push(path);
  } else if (Array.isArray(input)) {
    for (const [i, v] of input.entries()) nulCharacters(v, [...path, i], found);
  } else if (input !== null && typeof input === 'object') {
    for (const [k, v] of Object.entries(input)) {
      if (k.includes('\u0000')) found.push([...path, k]);
      else nulCharacters(v, [...path, k], found);
    }
  }
  return found;
}
