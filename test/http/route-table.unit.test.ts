import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../src/http/http-errors.js';
import { createRouteTable } from '../../src/http/route-table.js';
import type { RouteMethod } from '../../src/http/route-table.js';

const route = (method: RouteMethod, path: string) => ({ method, path, name: `${method} ${path}` });

const table = createRouteTable([
  route('POST', '/incidents'),
  route('GET', '/incidents/:id'),
  route('PATCH', '/incidents/:id'),
  route('DELETE', '/incidents/:id'),
  route('GET', '/services'),
  route('GET', '/services/:name/incidents'),
  route('POST', '/boards/:board/services/:service'),
  route('PATCH', '/boards/:board/services/:service'),
  route('GET', '/boards/:board/services/mine'),
]);

/** The code of the HttpProblem `find` throws, if it throws one. */
function problemOf(find: () => unknown): string | undefined {
  try {
    find();
  } catch (error) {
    if (error instanceof HttpProblem) return error.code;
    throw error;
  }
  return undefined;
}

describe('a route table', () => {
  it('finds a route by method and path, with its parameters decoded', () => {
    expect(table.find('GET', '/incidents/42')).toEqual({ route: route('GET', '/incidents/:id'), params: { id: '42' } });
    expect(table.find('PATCH', '/incidents/42')?.route?.name).toBe('PATCH /incidents/:id');
    expect(table.find('GET', '/services/a%20b/incidents')).toMatchObject({ params: { name: 'a b' } });
  });

  it('answers HEAD with the GET route, on paths with and without parameters', () => {
    expect(table.find('HEAD', '/incidents/7')?.route).toBe(table.find('GET', '/incidents/7')?.route);
    expect(table.find('HEAD', '/services')?.route).toBe(table.find('GET', '/services')?.route);
  });

  it('refuses HEAD where no GET is declared, naming the methods that are', () => {
    expect(table.find('HEAD', '/incidents')).toMatchObject({ route: null, allow: 'POST' });
  });

  it('refuses another method with the methods declared for the path, in their order', () => {
    expect(table.find('PUT', '/incidents/1')).toMatchObject({ route: null, allow: 'GET, PATCH, DELETE', declared: { name: 'GET /incidents/:id' } });
    expect(table.find('GET', '/incidents')).toMatchObject({ route: null, allow: 'POST' });
  });

  it('joins the methods of every path pattern that matches', () => {
    expect(table.find('DELETE', '/boards/b/services/mine')).toMatchObject({ route: null, allow: 'POST, PATCH, GET' });
    expect(table.find('GET', '/boards/b/services/mine')?.route?.name).toBe('GET /boards/:board/services/mine');
  });

  it('knows nothing of other paths', () => {
    for (const path of ['/', '/incidents/', '/incidents/1/updates', '//incidents', '/services/x']) expect(table.find('GET', path), path).toBeUndefined();
  });

  it('is a route_not_found where a segment holds a NUL character', () => {
    expect(problemOf(() => table.find('GET', '/incidents/1%00'))).toBe('route_not_found');
  });

  it('is a bad_request where a segment is not percent-encoded UTF-8 text', () => {
    for (const bytes of ['%E0%A4%A', '%C3%28', '%FF', '%C0%80', '%C0%AF', '%E0%80%AF', '%ED%A0%80']) {
      expect(
        problemOf(() => table.find('GET', `/incidents/${bytes}`)),
        bytes,
      ).toBe('bad_request');
    }
  });

  it('answers a path asked again as it answered it first, past the answers it keeps', () => {
    const again = createRouteTable([route('GET', '/incidents/:id'), route('PATCH', '/incidents/:id')]);
    const first = again.find('GET', '/incidents/42');
    expect(again.find('GET', '/incidents/42')).toEqual(first);
    expect(again.find('PATCH', '/incidents/42')?.route?.name).toBe('PATCH /incidents/:id');
    expect(again.find('PUT', '/incidents/42')).toMatchObject({ route: null, allow: 'GET, PATCH' });
    expect(again.find('PUT', '/incidents/42')).toMatchObject({ route: null, allow: 'GET, PATCH' });
    expect(again.find('GET', '/nope')).toBeUndefined();
    expect(again.find('GET', '/nope')).toBeUndefined();
    // More paths than it keeps: every one still found, with its own parameters.
    for (let id = 0; id < 2_500; id++) expect(again.find('GET', `/incidents/${id}`)).toEqual({ route: first?.route, params: { id: String(id) } });
    expect(again.find('GET', `/incidents/${'9'.repeat(300)}`)).toMatchObject({ params: { id: '9'.repeat(300) } });
  });

  it('hands out parameters nobody can change for the next request of the path', () => {
    const found = table.find('GET', '/incidents/5');
    const params = (found && 'params' in found ? found.params : {}) as Record<string, string>;
    expect(() => {
      params.id = '6';
    }).toThrow(TypeError);
    expect(table.find('GET', '/incidents/5')).toMatchObject({ params: { id: '5' } });
  });

  it('refuses a bad path every time it is asked, never from a kept answer', () => {
    for (let i = 0; i < 3; i++) {
      expect(problemOf(() => table.find('GET', '/incidents/%FF'))).toBe('bad_request');
      expect(problemOf(() => table.find('GET', '/incidents/1%00'))).toBe('route_not_found');
    }
  });

  it('refuses two routes for one method and path', () => {
    expect(() => createRouteTable([route('GET', '/a'), route('GET', '/a')])).toThrow(/two routes for GET \/a/);
  });
});
