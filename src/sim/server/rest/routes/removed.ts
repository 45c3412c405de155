/**
 * Routes the seed names as removed (interface-spec Versioning 3): the multivariate lookup
 * (PUT /multivariate_event_collections/{collection_ticker}/lookup) and GET /exchange/announcements.
 * They answer 410 Gone with a nested error, as the removed legacy order mutations do (rest.md §2);
 * the code `endpoint_removed` is the simulator's choice (no capture of these exists). Public, so
 * any client learns the route is gone rather than a 401.
 */

import { nestedError, type RestReply } from '../reply.ts';
import { route, type RouteDef } from '../route.ts';

function gone(message: string): () => RestReply {
  return () => nestedError(410, 'endpoint_removed', message);
}

export const REMOVED_ROUTES: readonly RouteDef[] = [
  route('PUT', '/multivariate_event_collections/{collection_ticker}/lookup', { auth: false, body: 'optional' }, gone('the multivariate lookup endpoint was removed; create or resolve a combo market with POST /multivariate_event_collections/{collection_ticker}')),
  route('GET', '/exchange/announcements', { auth: false }, gone('GET /exchange/announcements was removed')),
];
