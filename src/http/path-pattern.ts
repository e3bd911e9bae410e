/** A route path with `:name` segments, compiled once: the API's routes and the public pages' alike. */
export interface PathPattern {
  pattern: RegExp;
  /** The `:name` segments, in order. */
  names: string[];
}

export function compilePath(path: string): PathPattern {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), names };
}
