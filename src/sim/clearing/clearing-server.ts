/**
 * The clearing-member REST API (interface-spec, clearing-member API) on the simulator's port, under
 * its own base path CLEARING_PREFIX (version v1): bearer authentication `admin_user_id:access_token`
 * (401 missing or invalid, 403 when the credential lacks the resource's permission), flat error
 * bodies {code, message, details?} as the seed's error body gives them, 500 for an unexpected
 * failure, rate limiting through the simulator's limiter (read bucket, default cost), and a
 * per-address failed-authentication throttle (auth-throttle.ts). A malformed query (bad
 * %-escape, over 32 KiB) is a flat 400 bad_request on any path. Routes:
 *
 *   GET /margin/active_obligations                                   obligations, details inline
 *                                                                    up to 1000 rows + *_truncated
 *   GET /margin/funding_estimate_by_asset_class                      {estimates: {Crypto: ...}}
 *   GET /margin/obligations/{obligation_id}/settlement_details       pages: ?limit (1-1000,
 *   GET /margin/obligations/{obligation_id}/maintenance_margin_details       default 1000)
 *   GET /margin/obligations/{obligation_id}/funding_payments                 &cursor
 *
 * It owns request handling for that prefix only; numbers come from obligations.ts.
 */

import type { SimServices } from '../server/services.ts';
import type { HttpRequest, HttpResponse, TemplatedApp } from '../../net/uws.ts';
import { jsonReply, statusLine, TOO_MANY_REQUESTS, flatError, type RestReply } from '../server/rest/reply.ts';
import { Query } from '../server/rest/query.ts';
import { RestError } from '../server/rest/reply.ts';
import { decodeCursor, encodeCursor } from '../engine/pagination.ts';
import { AuthThrottle } from './auth-throttle.ts';
import { ClearingAuthFailure, type ClearingCredential, type ClearingPermission } from './credentials.ts';
import { fundingEstimateOf, INLINE_DETAIL_ROWS_MAX, obligationsOf, type Obligation } from './obligations.ts';

export const CLEARING_PREFIX = '/clearing-api/v1';

const DETAIL_ARRAYS = ['settlement_details', 'maintenance_margin_details', 'funding_payments'] as const;
type DetailArray = (typeof DETAIL_ARRAYS)[number];

export class ClearingServer {
  readonly #services: SimServices;
  readonly #throttle: AuthThrottle;

  constructor(services: SimServices) {
    this.#services = services;
    this.#throttle = new AuthThrottle(services.now);
  }

  /** Registers the prefix's routes on `app` (before the catch-all REST route). */
  attach(app: TemplatedApp): void {
    app.any(`${CLEARING_PREFIX}/*`, (res, req) => this.#onRequest(res, req));
  }

  /**
   * The uWS callback: nothing may throw out of it (an exception there ends the process), so every
   * step, reading the request included, is inside the try; writing is guarded on its own.
   */
  #onRequest(res: HttpResponse, req: HttpRequest): void {
    let reply: RestReply;
    let path = '';
    try {
      const method = req.getMethod().toUpperCase();
      path = req.getUrl().slice(CLEARING_PREFIX.length);
      const rawQuery = req.getQuery() ?? '';
      const authorization = req.getHeader('authorization');
      const remote = Buffer.from(res.getRemoteAddressAsText()).toString();
      reply = this.#handle(method, path, rawQuery, authorization, remote);
    } catch (error) {
      if (error instanceof RestError) reply = asFlatError(error.reply);
      else {
        this.#services.logger.error({ err: error, path: path.slice(0, 200) }, 'clearing handler failed');
        reply = flatError(500, 'internal_server_error', 'internal server error');
      }
    }
    try {
      res.cork(() => {
        res.writeStatus(statusLine(reply.status));
        res.writeHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(reply.body ?? '');
      });
    } catch (error) {
      this.#services.logger.error({ err: error, path: path.slice(0, 200) }, 'clearing reply failed');
    }
  }

  /**
   * Order of checks: query decoding (400), route (404), method (405), failed-auth throttle (429),
   * authentication (401), permission (403), rate limit (429), handler.
   */
  #handle(method: string, path: string, rawQuery: string, authorization: string, remote: string): RestReply {
    const query = new Query(rawQuery);
    const parts = path.split('/');
    // ['', 'margin', ...]
    let permission: ClearingPermission;
    let run: (credential: ClearingCredential) => RestReply;
    if (path === '/margin/active_obligations') {
      permission = 'obligations';
      run = (credential) => jsonReply(200, { obligations: this.#obligationsOf(credential.memberUserId).map(inline) });
    } else if (path === '/margin/funding_estimate_by_asset_class') {
      permission = 'funding';
      run = (credential) => jsonReply(200, { estimates: fundingEstimateOf(this.#services.margin, credential.memberUserId) });
    } else if (parts.length === 5 && parts[1] === 'margin' && parts[2] === 'obligations' && parts[3] !== '' && (DETAIL_ARRAYS as readonly string[]).includes(parts[4])) {
      permission = 'obligations';
      let obligationId: string;
      try {
        obligationId = decodeURIComponent(parts[3]);
      } catch {
        return flatError(400, 'bad_request', 'malformed obligation_id');
      }
      run = (credential) => this.#detailPage(credential, obligationId, parts[4] as DetailArray, query);
    } else {
      return flatError(404, 'not_found', `no route for ${method.slice(0, 16)} ${CLEARING_PREFIX}${path.length <= 200 ? path : ''}`);
    }
    if (method !== 'GET') return flatError(405, 'method_not_allowed', `method ${method.slice(0, 16)} is not allowed`);
    const retryAfterMs = this.#throttle.retryAfterMs(remote);
    if (retryAfterMs > 0) {
      return flatError(429, 'too_many_requests', 'too many failed authentications from this address', `retry after ${Math.ceil(retryAfterMs / 1000)} s`);
    }
    const credential = this.#services.clearing.authenticate(authorization);
    if (typeof credential === 'number') {
      this.#throttle.noteFailure(remote);
      const detail = credential === ClearingAuthFailure.MISSING ? 'missing Authorization header' : credential === ClearingAuthFailure.MALFORMED ? 'expected Bearer <admin_user_id>:<access_token>' : 'unknown admin user id or access token';
      return flatError(401, 'unauthorized', 'missing or invalid credentials', detail);
    }
    if (!credential.permissions.includes(permission)) return flatError(403, 'forbidden', `credential is not permitted to access this resource`, permission);
    if (!this.#services.rateLimiter.admit(`clearing:${credential.adminUserId}`, 'basic', 'read', 10)) return TOO_MANY_REQUESTS;
    return run(credential);
  }

  /** The member's earlier cycles still outstanding (backlog.ts), then the current cycle's, by asset class then id. */
  #obligationsOf(memberUserId: string): Obligation[] {
    const current = obligationsOf(this.#services.margin, memberUserId);
    const backlog = this.#services.clearing.backlog.of(memberUserId);
    if (backlog.length === 0) return current;
    return [...backlog, ...current].sort((a, b) => (a.asset_class !== b.asset_class ? (a.asset_class < b.asset_class ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  #detailPage(credential: ClearingCredential, obligationId: string, array: DetailArray, query: Query): RestReply {
    const obligation = this.#obligationsOf(credential.memberUserId).find((o) => o.id === obligationId);
    if (obligation === undefined) return flatError(404, 'not_found', 'obligation not found');
    const limit = query.limit(INLINE_DETAIL_ROWS_MAX, INLINE_DETAIL_ROWS_MAX);
    const rows: unknown[] = obligation[array];
    const start = decodeCursor(query.cursor()) + 1; // cursor: index of the last row returned
    const page = rows.slice(start, start + limit);
    const end = start + page.length;
    return jsonReply(200, { [array]: page, cursor: end < rows.length ? encodeCursor(end - 1) : '' });
  }
}

/**
 * The query parser answers the trading API's bare {"msg"} shape; the clearing API's errors are
 * flat {code, message}, so a {"msg"} 400 is recast as flat bad_request (off the hot path: errors only).
 */
function asFlatError(reply: RestReply): RestReply {
  if (reply.body === null) return reply;
  try {
    const parsed = JSON.parse(reply.body) as { msg?: unknown };
    if (typeof parsed.msg === 'string') return flatError(reply.status, 'bad_request', parsed.msg);
  } catch {
    // not JSON: fall through and send it as it is
  }
  return reply;
}

/** Caps each detail array at 1000 inline rows and flags the capped ones. */
function inline(obligation: Obligation): Record<string, unknown> {
  const out: Record<string, unknown> = { ...obligation };
  for (const array of DETAIL_ARRAYS) {
    const rows = obligation[array];
    if (rows.length > INLINE_DETAIL_ROWS_MAX) {
      out[array] = rows.slice(0, INLINE_DETAIL_ROWS_MAX);
      out[`${array}_truncated`] = true;
    }
  }
  return out;
}
