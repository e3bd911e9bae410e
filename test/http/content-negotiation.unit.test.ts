import { describe, expect, it } from 'vitest';
import { clientHolds } from '../../src/http/conditional-request.js';
import { negotiateCoding } from '../../src/http/content-coding.js';

describe('Accept-Encoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br, zstd', 'br'],
    ['GZIP', 'gzip'],
    ['br;q=0.9, gzip', 'gzip'],
    ['br;q=0.9, gzip;q=0.95', 'gzip'],
    ['br ; q=0.5 , gzip ; q=0.4', 'br'],
    ['gzip;q=0, br;q=0', 'identity'],
    ['deflate', 'identity'],
    ['identity', 'identity'],
    ['gzip;q=0.001', 'gzip'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['identity;q=1, gzip;q=0.5', 'identity'],
    ['gzip, identity;q=0', 'gzip'],
    ['identity;q=0', null],
    ['*;q=0', null],
    ['*;q=0, identity', 'identity'],
    ['deflate, identity;q=0', null],
  ] as const)('%s → %s', (header, coding) => {
    expect(negotiateCoding(header)).toBe(coding);
  });
});

describe('If-None-Match and If-Modified-Since', () => {
  const answer = { opaqueTags: new Set(['abc', 'abc-gzip', 'abc-br']), lastModifiedMs: Date.parse('2026-11-22T10:02:30.500Z') };
  const holds = (headers: Record<string, string>) => clientHolds(headers, answer);

  it('compares entity tags weakly, in lists, and takes *', () => {
    expect(holds({ 'if-none-match': '"abc"' })).toBe(true);
    expect(holds({ 'if-none-match': 'W/"abc-gzip"' })).toBe(true);
    expect(holds({ 'if-none-match': '"x", W/"y",W/"abc-br"' })).toBe(true);
    expect(holds({ 'if-none-match': '*' })).toBe(true);
    expect(holds({ 'if-none-match': '"ab"' })).toBe(false);
    expect(holds({ 'if-none-match': 'abc' })).toBe(false);
    expect(holds({ 'if-none-match': '"x,abc"' })).toBe(false);
  });

  it('answers If-Modified-Since to the second, and ignores it when If-None-Match is sent', () => {
    expect(holds({ 'if-modified-since': 'Sun, 22 Nov 2026 10:02:30 GMT' })).toBe(true);
    expect(holds({ 'if-modified-since': 'Sun, 22 Nov 2026 10:05:00 GMT' })).toBe(true);
    expect(holds({ 'if-modified-since': 'Sun, 22 Nov 2026 10:02:29 GMT' })).toBe(false);
    expect(holds({ 'if-modified-since': 'yesterday' })).toBe(false);
    expect(holds({ 'if-modified-since': 'Sun, 22 Nov 2026 10:05:00 GMT', 'if-none-match': '"other"' })).toBe(false);
    expect(clientHolds({ 'if-modified-since': 'Sun, 22 Nov 2026 10:05:00 GMT' }, { ...answer, lastModifiedMs: null })).toBe(false);
  });
});
