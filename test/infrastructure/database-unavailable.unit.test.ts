import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError as DatabaseModuleError } from '../../src/db/database.js';
import { DatabaseUnavailableError, isDatabaseUnavailable, refusesConnectionsNow } from '../../src/infrastructure/database-unavailable.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['its own kind', new DatabaseUnavailableError('cannot use the PostgreSQL database at db:5432')],
    ["the database module's error of the same name", new DatabaseModuleError('cannot use the PostgreSQL database at db:5432')],
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection', withCode('ECONNRESET')],
    ['a host not found', withCode('ENOTFOUND')],
    ['an administrator shutdown', withCode('57P01')],
    ['a connection exception (class 08)', withCode('08006')],
    ['too many connections, as a cause', new Error('pool failed', { cause: withCode('53300') })],
    ['a terminated connection', new Error('Connection terminated unexpectedly')],
    ["the pool's connection timeout", new Error('timeout exceeded when trying to connect')],
  ])('is true for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a query error', withCode('42P01', 'relation "x" does not exist')],
    ['a constraint violation', withCode('23505', 'duplicate key')],
    ['a plain error', new Error('boom')],
    ['an error of another name', Object.assign(new Error('x'), { name: 'DatabaseError' })],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', null],
  ])('is false for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('refusesConnectionsNow', () => {
  it('looks down the causes, five deep at most', () => {
    const nested = (depth: number): unknown => (depth === 0 ? withCode('57P03') : new Error('wrapped', { cause: nested(depth - 1) }));
    expect(refusesConnectionsNow(nested(4))).toBe(true);
    expect(refusesConnectionsNow(nested(5))).toBe(false);
    expect(refusesConnectionsNow(withCode('ECONNREFUSED'))).toBe(false);
  });
});
