/**
 * The closed set of failures the domain reports. Every surface (HTTP, Slack,
 * Discord, CLI) maps each code exactly once, with an exhaustive switch.
 */
export type DomainErrorCode = 'unauthorized' | 'not_found' | 'invalid_input' | 'conflict' | 'forbidden';

export interface FieldIssue {
  /** Path of the offending field in the input, e.g. ['tags', 3]. Empty for the whole input. */
  path: readonly (string | number)[];
  message: string;
  /** Where the field was sent: the body (default) or the query string. */
  location?: 'body' | 'query';
}

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly issues: readonly FieldIssue[];

  constructor(code: DomainErrorCode, message: string, issues: readonly FieldIssue[] = []) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.issues = issues;
  }
}

export const notFound = (what = 'resource'): DomainError => new DomainError('not_found', `The ${what} does not exist`);

export const forbidden = (message: string): DomainError => new DomainError('forbidden', message);

export const invalidInput = (path: readonly (string | number)[], message: string): DomainError =>
  new DomainError('invalid_input', message, [{ path, message }]);

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
