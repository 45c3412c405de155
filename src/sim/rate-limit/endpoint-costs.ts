/**
 * Token cost and bucket of every simulated endpoint (spec/rest.md §9). Routes are named by method
 * and path template relative to /trade-api/v2 (`/portfolio/events/orders/{order_id}`), the same
 * template the router registers. Everything not listed costs the default 10 from the bucket its
 * kind implies. This file owns the table; it never sees a request.
 */

/**
 * The bucket a request pays from. Margin routes (/margin/...) pay from the perps lane, whose sizes
 * GET /account/limits/perps reports (tiers.ts PERPS_TIER_BUDGETS); everything else from the
 * Predictions lane GET /account/limits reports.
 */
export type BucketKind = 'read' | 'write' | 'perps_read' | 'perps_write';

export const DEFAULT_COST = 10;
export const API_PREFIX = '/trade-api/v2';

export interface EndpointCost {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Template relative to /trade-api/v2. */
  readonly path: string;
  /** Tokens per request, or per item when `perItem`. */
  readonly cost: number;
  /** Batch endpoints bill every item (rest.md §9: 10 per order created, 2 per order cancelled). */
  readonly perItem: boolean;
}

/** Non-default costs, as GET /account/endpoint_costs lists them. */
export const NON_DEFAULT_COSTS: readonly EndpointCost[] = [
  { method: 'POST', path: '/portfolio/events/orders/batched', cost: 10, perItem: true },
  { method: 'DELETE', path: '/portfolio/events/orders/{order_id}', cost: 2, perItem: false },
  { method: 'DELETE', path: '/portfolio/events/orders/batched', cost: 2, perItem: true },
  { method: 'DELETE', path: '/portfolio/events/orders', cost: 2, perItem: false },
  { method: 'GET', path: '/portfolio/orders/{order_id}', cost: 2, perItem: false },
  // Legacy mutations still bill before they answer 410 (legacy = 10x the V2 cost, interface-spec Limits).
  { method: 'POST', path: '/portfolio/orders', cost: 100, perItem: false },
  { method: 'POST', path: '/portfolio/orders/{order_id}/amend', cost: 100, perItem: false },
  { method: 'POST', path: '/portfolio/orders/{order_id}/decrease', cost: 100, perItem: false },
  { method: 'POST', path: '/portfolio/orders/batched', cost: 100, perItem: true },
  { method: 'DELETE', path: '/portfolio/orders/{order_id}', cost: 20, perItem: false },
  { method: 'DELETE', path: '/portfolio/orders/batched', cost: 20, perItem: true },
  { method: 'POST', path: '/account/api_usage_level/upgrade', cost: 30, perItem: false },
  // Quote create, quote delete, get quote by id: 2 (interface-spec Limits), scoped and deprecated forms.
  { method: 'POST', path: '/communications/quotes', cost: 2, perItem: false },
  { method: 'DELETE', path: '/communications/rfqs/{rfq_id}/quotes/{quote_id}', cost: 2, perItem: false },
  { method: 'DELETE', path: '/communications/quotes/{quote_id}', cost: 2, perItem: false },
  { method: 'GET', path: '/communications/rfqs/{rfq_id}/quotes/{quote_id}', cost: 2, perItem: false },
  { method: 'GET', path: '/communications/quotes/{quote_id}', cost: 2, perItem: false },
  // Margin: cancel costs like a V2 cancel; cancel-all the same write tokens as cancelling one order (interface-spec Limits).
  { method: 'DELETE', path: '/margin/orders/{order_id}', cost: 2, perItem: false },
  { method: 'DELETE', path: '/margin/orders', cost: 2, perItem: false },
];

const costIndex = new Map<string, EndpointCost>();
for (const entry of NON_DEFAULT_COSTS) costIndex.set(`${entry.method} ${entry.path}`, entry);

/** Cost of one request (or one item of a batch) on a route. */
export function costOf(method: string, pathTemplate: string): { cost: number; perItem: boolean } {
  const entry = costIndex.get(`${method} ${pathTemplate}`);
  return entry === undefined ? { cost: DEFAULT_COST, perItem: false } : { cost: entry.cost, perItem: entry.perItem };
}

/**
 * Write bucket: order placement, amends, cancels, order groups, the RFQ quote flow (rest.md §9:
 * every non-GET /communications route) and combo market creation (docs silent; a trade-scoped
 * write, so ours). Everything else (every GET and anything not routed elsewhere) reads. Margin
 * routes use the same split in the perps lane.
 */
export function bucketOf(method: string, pathTemplate: string): BucketKind {
  const kind = predictionsBucketOf(method, pathTemplate);
  if (!pathTemplate.startsWith('/margin/')) return kind;
  return kind === 'write' ? 'perps_write' : 'perps_read';
}

function predictionsBucketOf(method: string, pathTemplate: string): 'read' | 'write' {
  if (method === 'GET') return 'read';
  if (pathTemplate.startsWith('/portfolio/events/orders')) return 'write';
  if (pathTemplate.startsWith('/portfolio/orders')) return 'write';
  if (pathTemplate.startsWith('/portfolio/order_groups')) return 'write';
  if (pathTemplate.startsWith('/margin/orders')) return 'write'; // margin order entry
  if (pathTemplate === '/account/api_usage_level/upgrade') return 'write';
  if (pathTemplate.startsWith('/communications/')) return 'write';
  if (pathTemplate.startsWith('/multivariate_event_collections/')) return 'write';
  return 'read';
}
