/**
 * What a REST route is: method, path template relative to /trade-api/v2, whether it needs a signed
 * request and which scope, whether it takes a JSON body, whether it is order entry (fault
 * `ambiguous_order` targets), and the synchronous handler. Also the per-request context handlers
 * read. This file owns the shapes only.
 */

import type { ApiKeyRecord, ScopeNeed } from '../../auth/index.ts';
import type { Query } from './query.ts';
import type { RestReply } from './reply.ts';
import type { SimServices } from '../services.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** none: no body read; json: a JSON body is required; optional: read when sent (PUTs send `{}`). */
export type BodyMode = 'none' | 'json' | 'optional';

export interface RestContext {
  readonly method: HttpMethod;
  /** Path template of the matched route, relative to /trade-api/v2. */
  readonly routeTemplate: string;
  /** Raw path as sent (percent-encoded), relative to /trade-api/v2. */
  readonly relativePath: string;
  /** Decoded path parameters by name. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Query;
  /** The signing key, null for unsigned requests to public routes. */
  readonly key: ApiKeyRecord | null;
  /** Decoded JSON body, undefined when none was sent. */
  readonly body: unknown;
  readonly services: SimServices;
  /** The Accept-Language header ('' when absent); market responses honour it (src/sim/i18n). */
  readonly acceptLanguage: string;
}

export interface RouteDef {
  readonly method: HttpMethod;
  /** The template the router matches. */
  readonly path: string;
  /**
   * The template the route answers as: `path`, except for an alias (a second spelling of a route,
   * as the seed's GET /portfolio/order/{orderId}), which bills, faults and reports as the original.
   */
  readonly canonicalPath: string;
  /** Signed request required (rest.md §1 lists which). */
  readonly auth: boolean;
  readonly scope: ScopeNeed;
  readonly body: BodyMode;
  /** Order-entry mutation: the order may be applied and the answer lost (fault ambiguous_order). */
  readonly orderEntry: boolean;
  /** Items billed by a per-item cost (batch endpoints); 1 otherwise. */
  readonly billedItems?: (ctx: RestContext) => number;
  readonly handle: (ctx: RestContext) => RestReply;
}

/** Shorthand for route tables. */
export function route(
  method: HttpMethod,
  path: string,
  options: { auth: boolean; scope?: ScopeNeed; body?: BodyMode; orderEntry?: boolean; billedItems?: (ctx: RestContext) => number },
  handle: (ctx: RestContext) => RestReply,
): RouteDef {
  return {
    method,
    path,
    canonicalPath: path,
    auth: options.auth,
    scope: options.scope ?? (options.auth ? 'read' : 'none'),
    body: options.body ?? 'none',
    orderEntry: options.orderEntry ?? false,
    billedItems: options.billedItems,
    handle,
  };
}

/** `original` served under a second path template with the same parameter names: the same answer, cost and scope. */
export function alias(path: string, original: RouteDef): RouteDef {
  return { ...original, path, canonicalPath: original.canonicalPath };
}
