/**
 * Matches a raw request path against the route templates. Static templates are a map lookup;
 * templates with `{param}` segments are tried in registration order after the static ones, so
 * `/portfolio/orders/queue_positions` wins over `/portfolio/orders/{order_id}`. Parameters are
 * percent-decoded here (the raw path stays untouched for signature checks). A path that exists
 * with another method is reported so the server can answer 405 instead of 404.
 */

import type { HttpMethod, RouteDef } from './route.ts';

/** Marks a parameter segment (cannot occur in a path: NUL). */
const PARAM = '\u0000';

interface PatternRoute {
  segments: string[]; // PARAM marks a parameter position
  names: string[]; // parameter names, in order
  byMethod: Map<HttpMethod, RouteDef>;
}

export interface RouteMatch {
  route: RouteDef | null;
  /** True when some route has this path with another method. */
  pathKnown: boolean;
  params: Record<string, string>;
  /** A parameter did not percent-decode. */
  badEncoding: boolean;
}

export class Router {
  readonly #static = new Map<string, Map<HttpMethod, RouteDef>>();
  readonly #patterns: PatternRoute[] = [];

  add(route: RouteDef): void {
    if (!route.path.includes('{')) {
      let byMethod = this.#static.get(route.path);
      if (byMethod === undefined) this.#static.set(route.path, (byMethod = new Map()));
      if (byMethod.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
      byMethod.set(route.method, route);
      return;
    }
    const parts = route.path.split('/');
    const segments: string[] = [];
    const names: string[] = [];
    for (const part of parts) {
      if (part.startsWith('{') && part.endsWith('}')) {
        segments.push(PARAM);
        names.push(part.slice(1, -1));
      } else segments.push(part);
    }
    let pattern = this.#patterns.find((p) => p.segments.join('/') === segments.join('/'));
    if (pattern === undefined) {
      pattern = { segments, names, byMethod: new Map() };
      this.#patterns.push(pattern);
    }
    if (pattern.byMethod.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    pattern.byMethod.set(route.method, route);
  }

  match(method: string, relativePath: string): RouteMatch {
    const result: RouteMatch = { route: null, pathKnown: false, params: {}, badEncoding: false };
    const byMethod = this.#static.get(relativePath);
    if (byMethod !== undefined) {
      result.pathKnown = true;
      result.route = byMethod.get(method as HttpMethod) ?? null;
      return result;
    }
    const parts = relativePath.split('/');
    for (const pattern of this.#patterns) {
      if (pattern.segments.length !== parts.length) continue;
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const segment = pattern.segments[i];
        if (segment === PARAM) {
          if (parts[i] === '') {
            ok = false;
            break;
          }
        } else if (segment !== parts[i]) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      result.pathKnown = true;
      const route = pattern.byMethod.get(method as HttpMethod);
      if (route === undefined) continue; // another pattern may serve this method
      let index = 0;
      for (let i = 0; i < parts.length; i++) {
        if (pattern.segments[i] !== PARAM) continue;
        try {
          result.params[pattern.names[index]] = decodeURIComponent(parts[i]);
        } catch {
          result.badEncoding = true;
          result.params[pattern.names[index]] = parts[i];
        }
        index++;
      }
      result.route = route;
      return result;
    }
    return result;
  }
}
