import { HttpProblem } from './http-errors.js';
import { compilePath } from './path-pattern.js';

/** The methods a route is declared with. HEAD is never declared: the GET route answers it, and Node sends no body. */
export type RouteMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What a table needs of its routes. */
export interface TableRoute {
  readonly method: RouteMethod;
  /** An absolute path, `:name` segments for parameters. */
  readonly path: string;
}

export interface RouteMatch<R> {
  readonly route: R;
  /** The `:name` segments, decoded. */
  readonly params: Readonly<Record<string, string>>;
}

/** A path that routes have, asked with a method none of them is declared with. */
export interface MethodRefused<R> {
  readonly route: null;
  /** The first route declared with the path. */
  readonly declared: R;
  /** The methods declared for the path, for the `Allow` header. */
  readonly allow: string;
}

export interface RouteTable<R extends TableRoute> {
  /**
   * The route for a request, undefined when no route has the path. A segment
   * that is not percent-encoded UTF-8 text (a lone byte, an overlong encoding)
   * throws a `bad_request`; one holding a NUL character throws a
   * `route_not_found`, for it names nothing (no name or id holds one, and
   * PostgreSQL refuses it in a query). Thrown, not returned, so that the
   * route's family answers in its own shape, as it answers an unknown name.
   */
  find(method: string, path: string): RouteMatch<R> | MethodRefused<R> | undefined;
}

/** The routes declared with one path. */
interface PathRoutes<R> {
  path: string;
  declared: R;
  pattern: RegExp;
  names: readonly string[];
  /** By method, HEAD beside GET. */
  byMethod: Map<string, R>;
  allow: string;
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
/** Paths with parameters whose answers a table keeps (see find). */
const FOUND_MAX = 1_000;
/** Longer paths are looked for each time: kept, a thousand of them would hold megabytes. */
const FOUND_PATH_MAX = 256;

/** The one place path segments are decoded, for every route of every table. */
function decodeParams(names: readonly string[], m: RegExpExecArray): Readonly<Record<string, string>> {
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    let value: string;
    try {
      value = decodeURIComponent(m[i + 1] ?? '');
    } catch {
      throw new HttpProblem('bad_request', `The path segment ${names[i]} is not valid percent-encoding of UTF-8 text`);
    }
    if (value.includes('\u0000')) throw new HttpProblem('route_not_found', `The path segment ${names[i]} holds a NUL character`);
    params[names[i]!] = value;
  }
  // Kept for the path's next requests (see find): nobody may change it.
  return Object.freeze(params);
}

function refusal<R>(refused: readonly PathRoutes<R>[]): MethodRefused<R> {
  const allow = refused.length === 1 ? refused[0]!.allow : [...new Set(refused.flatMap((entry) => entry.allow.split(', ')))].join(', ');
  return { route: null, declared: refused[0]!.declared, allow };
}

/**
 * Routes by method and path, grouped by path and compiled once. A path
 * without parameters is found by one lookup, with an answer made once, and
 * wins over a pattern; patterns are tried in the order declared.
 */
export function createRouteTable<R extends TableRoute>(routes: readonly R[]): RouteTable<R> {
  const byPath = new Map<string, PathRoutes<R>>();
  for (const route of routes) {
    let entry = byPath.get(route.path);
    if (!entry) {
      entry = { path: route.path, declared: route, ...compilePath(route.path), byMethod: new Map(), allow: '' };
      byPath.set(route.path, entry);
    }
    if (entry.byMethod.has(route.method)) throw new Error(`two routes for ${route.method} ${route.path}`);
    entry.byMethod.set(route.method, route);
    // The one place HEAD is derived from GET, for every route of every table.
    if (route.method === 'GET') entry.byMethod.set('HEAD', route);
    entry.allow = entry.allow === '' ? route.method : `${entry.allow}, ${route.method}`;
  }
  const fixed = new Map<string, { entry: PathRoutes<R>; matches: Map<string, RouteMatch<R>> }>();
  const patterned: PathRoutes<R>[] = [];
  for (const entry of byPath.values()) {
    if (entry.names.length > 0) {
      patterned.push(entry);
      continue;
    }
    const matches = new Map<string, RouteMatch<R>>();
    for (const [method, route] of entry.byMethod) matches.set(method, { route, params: NO_PARAMS });
    fixed.set(entry.path, { entry, matches });
  }

  // The answers for paths with parameters, as asked again and again (a page under load): a lookup instead of a pattern per
  // route and a decoding per segment. Bounded: when full, all are dropped and found again.
  const found = new Map<string, RouteMatch<R> | MethodRefused<R> | undefined>();

  function search(method: string, path: string): RouteMatch<R> | MethodRefused<R> | undefined {
    const exact = fixed.get(path);
    // Made only for a 405.
    let refused: PathRoutes<R>[] | undefined = exact ? [exact.entry] : undefined;
    for (const entry of patterned) {
      const m = entry.pattern.exec(path);
      if (!m) continue;
      const route = entry.byMethod.get(method);
      if (!route) {
        if (refused) refused.push(entry);
        else refused = [entry];
        continue;
      }
      return { route, params: decodeParams(entry.names, m) };
    }
    return refused ? refusal(refused) : undefined;
  }

  return {
    find(method, path) {
      const hit = fixed.get(path)?.matches.get(method);
      if (hit) return hit;
      if (patterned.length === 0 || path.length > FOUND_PATH_MAX) return search(method, path);
      const key = `${method} ${path}`;
      const known = found.get(key);
      if (known !== undefined || found.has(key)) return known;
      // A path that throws (bad percent-encoding) throws again each time, never kept.
      const answer = search(method, path);
      if (found.size >= FOUND_MAX) found.clear();
      found.set(key, answer);
      return answer;
    },
  };
}

/** The 405 of the API and the server's own routes. */
export function methodNotAllowed(method: string | undefined, refused: MethodRefused<unknown>): HttpProblem {
  return new HttpProblem('method_not_allowed', `${method} is not allowed here; use ${refused.allow}`, { Allow: refused.allow });
}
