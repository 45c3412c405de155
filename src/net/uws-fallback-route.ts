/**
 * Route patterns of the uWS.js fallback (uws-fallback.ts), matched as uWS.js 20's router does:
 * a pattern is split on '/'; a segment is literal, a parameter (':name', one segment, in order
 * for getParameter(index)) or '*' (the rest of the path, also none of it). When several routes
 * match, the most specific wins, segment by segment (literal before parameter before wildcard),
 * then a route for the request's method before an `any` one, then the one registered first. A
 * handler that calls `req.setYield(true)` passes the request to the next match.
 */

const SEGMENT_LITERAL = 0;
const SEGMENT_PARAMETER = 1;
const SEGMENT_WILDCARD = 2;

export interface FallbackRoute<Handler> {
  /** Upper-case method, or '*' for `any`. */
  readonly method: string;
  readonly pattern: string;
  readonly segments: readonly string[];
  /** Per segment: SEGMENT_LITERAL, SEGMENT_PARAMETER or SEGMENT_WILDCARD. */
  readonly kinds: readonly number[];
  readonly parameterNames: readonly string[];
  readonly order: number;
  readonly handler: Handler;
}

export class FallbackRouter<Handler> {
  readonly #routes: FallbackRoute<Handler>[] = [];

  add(method: string, pattern: string, handler: Handler): void {
    const segments = pattern.split('/');
    const kinds = segments.map((segment) => (segment === '*' ? SEGMENT_WILDCARD : segment.startsWith(':') ? SEGMENT_PARAMETER : SEGMENT_LITERAL));
    const parameterNames = segments.filter((_, i) => kinds[i] === SEGMENT_PARAMETER).map((segment) => segment.slice(1));
    const method_ = method === '*' ? '*' : method.toUpperCase();
    this.#routes.push({ method: method_, pattern, segments, kinds, parameterNames, order: this.#routes.length, handler });
    this.#routes.sort(compareRoutes);
  }

  get size(): number {
    return this.#routes.length;
  }

  /**
   * Routes matching `method` and `path`, best first, each with its parameter values (raw, as uWS
   * gives them). Allocates per request: the fallback trades speed for reach.
   */
  match(method: string, path: string): Array<{ route: FallbackRoute<Handler>; parameters: string[] }> {
    const parts = path.split('/');
    const found: Array<{ route: FallbackRoute<Handler>; parameters: string[] }> = [];
    for (const route of this.#routes) {
      if (route.method !== '*' && route.method !== method) continue;
      const parameters = matchSegments(route, parts);
      if (parameters !== null) found.push({ route, parameters });
    }
    return found;
  }
}

/** The parameter values when `parts` match the route's segments, else null. */
function matchSegments(route: FallbackRoute<unknown>, parts: readonly string[]): string[] | null {
  const parameters: string[] = [];
  const segments = route.segments;
  for (let i = 0; i < segments.length; i++) {
    const kind = route.kinds[i];
    if (kind === SEGMENT_WILDCARD) return parameters;
    if (i >= parts.length) return null;
    if (kind === SEGMENT_PARAMETER) parameters.push(parts[i]);
    else if (segments[i] !== parts[i]) return null;
  }
  return parts.length === segments.length ? parameters : null;
}

function compareRoutes(a: FallbackRoute<unknown>, b: FallbackRoute<unknown>): number {
  const common = Math.min(a.kinds.length, b.kinds.length);
  for (let i = 0; i < common; i++) {
    if (a.kinds[i] !== b.kinds[i]) return a.kinds[i] - b.kinds[i];
  }
  // Equal up to the shorter one: the longer pattern is the more specific, unless it goes on with a wildcard.
  if (a.kinds.length !== b.kinds.length) {
    const longer = a.kinds.length > b.kinds.length ? a : b;
    const nextKind = longer.kinds[common];
    const longerFirst = nextKind !== SEGMENT_WILDCARD ? -1 : 1;
    return longer === a ? longerFirst : -longerFirst;
  }
  const aAny = a.method === '*' ? 1 : 0;
  const bAny = b.method === '*' ? 1 : 0;
  if (aAny !== bAny) return aAny - bAny;
  return a.order - b.order;
}
