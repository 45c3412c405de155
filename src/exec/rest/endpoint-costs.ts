/**
 * What each REST request costs in read tokens (rest.md §9): the default (10) unless the venue's
 * GET /account/endpoint_costs lists the route with another cost. The venue lists full path
 * templates (`/trade-api/v2/portfolio/orders/{order_id}`); a `{name}` segment matches any one
 * segment. This file owns the table and the matching; it never sends a request.
 */

export const DEFAULT_ENDPOINT_COST = 10;

interface CostEntry {
  readonly method: string;
  readonly segments: readonly string[];
  readonly cost: number;
}

export class EndpointCosts {
  readonly defaultCost: number;
  readonly #entries: readonly CostEntry[];

  constructor(defaultCost: number = DEFAULT_ENDPOINT_COST, entries: readonly { method: string; path: string; cost: number }[] = []) {
    this.defaultCost = defaultCost;
    this.#entries = entries.map((entry) => ({ method: entry.method.toUpperCase(), segments: splitPath(entry.path), cost: entry.cost }));
  }

  /** The venue's answer to GET /account/endpoint_costs; null when the body has no usable default_cost. */
  static fromJson(body: Record<string, unknown>): EndpointCosts | null {
    const defaultCost = body.default_cost;
    if (typeof defaultCost !== 'number' || !Number.isSafeInteger(defaultCost) || defaultCost <= 0) return null;
    const entries: { method: string; path: string; cost: number }[] = [];
    const list = Array.isArray(body.endpoint_costs) ? (body.endpoint_costs as unknown[]) : [];
    for (const item of list) {
      if (typeof item !== 'object' || item === null) continue;
      const { method, path, cost } = item as Record<string, unknown>;
      if (typeof method !== 'string' || typeof path !== 'string' || typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost < 0) continue;
      entries.push({ method, path, cost });
    }
    return new EndpointCosts(defaultCost, entries);
  }

  /** Tokens one request costs; `path` is the full request path (the query is ignored). */
  costOf(method: string, path: string): number {
    const segments = splitPath(path);
    for (const entry of this.#entries) {
      if (entry.method === method && matches(entry.segments, segments)) return entry.cost;
    }
    return this.defaultCost;
  }
}

function splitPath(path: string): string[] {
  const query = path.indexOf('?');
  return (query === -1 ? path : path.slice(0, query)).split('/').filter((segment) => segment !== '');
}

function matches(template: readonly string[], segments: readonly string[]): boolean {
  if (template.length !== segments.length) return false;
  for (let i = 0; i < template.length; i++) {
    const part = template[i];
    if (part.startsWith('{') && part.endsWith('}')) continue;
    if (part !== segments[i]) return false;
  }
  return true;
}
