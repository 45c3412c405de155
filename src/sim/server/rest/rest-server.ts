/**
 * The REST front door on uWebSockets.js: reads a request (path, query, the KALSHI-ACCESS-* headers,
 * a size-capped body), then authenticates, checks scopes, bills the rate limiter, consults the
 * fault controller and runs the route's synchronous handler, and writes one JSON reply. Every
 * failure becomes a documented error body (reply.ts); an unexpected exception is a logged 500, never
 * a crash. Order of checks: route (404/405), path parameters (400: malformed, or longer than 64
 * characters for an id and 200 for a ticker, bounds.ts), authentication (401), scope (403), query and body decoding (400/413),
 * rate limit (429), faults, handler. Requests run in per-caller lanes (request-lanes.ts), so a
 * caller with many expensive requests delays others by about one of them. It never renders
 * exchange objects itself.
 */

import {
  ACCESS_KEY_HEADER,
  ACCESS_SIGNATURE_HEADER,
  ACCESS_TIMESTAMP_HEADER,
  AUTH_FAILURE_BODIES,
  AuthFailure,
  scopesAllow,
  type ApiKeyRecord,
  type AuthResult,
} from '../../auth/index.ts';
import { API_PREFIX, bucketOf, costOf } from '../../rate-limit/index.ts';
import type { HttpRequest, HttpResponse, TemplatedApp } from '../../../net/uws.ts';
import type { SimServices } from '../services.ts';
import { PROBED_ROUTES, type WireProbe } from '../probe.ts';
import { decodeJsonBody } from './body.ts';
import { ID_CHARS_MAX, PATH_PARAM_CHARS_MAX } from './bounds.ts';
import { probeEndpointReply, SIM_PATH_PREFIX } from './probe-endpoint.ts';
import { Query } from './query.ts';
import { REQUEST_SLICE_MS, RequestLanes, REQUESTS_QUEUED_PER_LANE_MAX } from './request-lanes.ts';
import { flatError, nestedError, RestError, statusLine, TOO_MANY_REQUESTS, type RestReply } from './reply.ts';
import type { HttpMethod, RestContext, RouteDef } from './route.ts';
import { Router } from './router.ts';

/** One request in flight: what was read synchronously from uWS plus the body as it streams in. */
interface PendingRequest {
  res: HttpResponse;
  aborted: boolean;
  done: boolean;
  method: HttpMethod;
  rawPath: string;
  relativePath: string;
  rawQuery: string;
  keyId: string;
  timestamp: string;
  signature: string;
  contentType: string;
  /** Accept-Language as sent ('' when absent): market responses are translated by it. */
  acceptLanguage: string;
  remoteAddress: string;
  route: RouteDef;
  params: Record<string, string>;
  chunks: Buffer[];
  bodyBytes: number;
  /** The whole body once received (empty for GET), kept while the request waits in its lane. */
  body: Buffer;
  /** Probe clock when the request arrived; 0 unless the probe is on and the route is probed. */
  receivedNs: number;
}

const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'DELETE']);
const NO_BODY = Buffer.alloc(0);

export class RestServer {
  readonly #services: SimServices;
  readonly #router = new Router();
  /** Requests a fault left unanswered; ended when the server closes. */
  readonly #hanging = new Set<PendingRequest>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #probe: WireProbe | null;
  /** Routes the probe samples (empty when it is off). */
  readonly #probedRoutes = new Set<RouteDef>();
  readonly #lanes: RequestLanes<PendingRequest>;
  #closed = false;

  constructor(services: SimServices, routes: readonly RouteDef[]) {
    this.#services = services;
    this.#probe = services.probe;
    this.#lanes = new RequestLanes<PendingRequest>({
      run: (pending, deferred) => {
        if (pending.aborted || pending.done) return;
        // Deferred runs come from a setImmediate, where a throw would also end the process.
        try {
          if (deferred) pending.res.cork(() => this.#process(pending, pending.body));
          else this.#process(pending, pending.body);
        } catch (error) {
          this.#services.logger.error({ err: error, path: pending.rawPath.slice(0, 256) }, 'REST reply failed');
        }
      },
      refuse: (pending) => {
        if (pending.aborted || pending.done) return;
        pending.res.cork(() => this.#finish(pending, TOO_MANY_REQUESTS, false));
      },
      sliceMs: REQUEST_SLICE_MS,
      maxQueued: REQUESTS_QUEUED_PER_LANE_MAX,
    });
    for (const route of routes) {
      this.#router.add(route);
      if (this.#probe !== null && PROBED_ROUTES.some((probed) => probed.method === route.method && probed.path === route.path)) this.#probedRoutes.add(route);
    }
  }

  /** Registers the catch-all HTTP handler on `app` (the WebSocket route is registered before it). */
  attach(app: TemplatedApp): void {
    app.any('/*', (res, req) => this.#onRequest(res, req));
  }

  /** Ends hanging requests and pending delayed replies. */
  close(): void {
    this.#closed = true;
    this.#lanes.close();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const pending of this.#hanging) if (!pending.aborted && !pending.done) closeQuietly(pending);
    this.#hanging.clear();
  }

  /**
   * The uWS callback. An exception thrown out of a uWS callback ends the process, so the whole
   * read is guarded: a bug becomes a logged 500 on a closed connection, never a crash.
   */
  #onRequest(res: HttpResponse, req: HttpRequest): void {
    try {
      this.#accept(res, req);
    } catch (error) {
      this.#services.logger.error({ err: error }, 'REST request read failed');
      answerQuietly(res, nestedError(500, 'internal_server_error', 'internal server error'));
    }
  }

  #accept(res: HttpResponse, req: HttpRequest): void {
    // First thing: the arrival time the probe measures from (one null check when it is off).
    const receivedNs = this.#probe === null ? 0 : this.#probe.now();
    const method = req.getMethod().toUpperCase();
    const rawPath = req.getUrl();
    if (!METHODS.has(method)) {
      res.cork(() => writeReply(res, nestedError(405, 'method_not_allowed', `method ${method.slice(0, 16)} is not supported`)));
      return;
    }
    if (!rawPath.startsWith(API_PREFIX + '/')) {
      const reply = rawPath.startsWith(SIM_PATH_PREFIX)
        ? probeEndpointReply(this.#probe, method, rawPath)
        : nestedError(404, 'not_found', `no route for ${method} ${echoedPath(rawPath)}`);
      res.cork(() => writeReply(res, reply));
      return;
    }
    const relativePath = rawPath.slice(API_PREFIX.length);
    const match = this.#router.match(method, relativePath);
    if (match.route === null) {
      const reply = match.pathKnown
        ? nestedError(405, 'method_not_allowed', `method ${method} is not allowed on ${echoedPath(rawPath)}`)
        : nestedError(404, 'not_found', `no route for ${method} ${echoedPath(rawPath)}`);
      res.cork(() => writeReply(res, reply));
      return;
    }
    if (match.badEncoding) {
      res.cork(() => writeReply(res, nestedError(400, 'bad_request', `malformed percent-encoding in path ${rawPath.length <= 256 ? rawPath : `of ${rawPath.length} characters`}`)));
      return;
    }
    for (const name in match.params) {
      const length = match.params[name].length;
      const max = name.endsWith('_id') ? ID_CHARS_MAX : PATH_PARAM_CHARS_MAX; // order_id, order_group_id; else tickers
      if (length <= max) continue;
      res.cork(() => writeReply(res, nestedError(400, 'bad_request', `path parameter ${name} must be at most ${max} characters, got ${length}`, name)));
      return;
    }
    const pending: PendingRequest = {
      res,
      aborted: false,
      done: false,
      method: method as HttpMethod,
      rawPath,
      relativePath,
      rawQuery: req.getQuery() ?? '',
      keyId: req.getHeader(ACCESS_KEY_HEADER),
      timestamp: req.getHeader(ACCESS_TIMESTAMP_HEADER),
      signature: req.getHeader(ACCESS_SIGNATURE_HEADER),
      contentType: req.getHeader('content-type'),
      acceptLanguage: req.getHeader('accept-language'),
      remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString(),
      route: match.route,
      params: match.params,
      chunks: [],
      bodyBytes: 0,
      body: NO_BODY,
      receivedNs: receivedNs !== 0 && this.#probedRoutes.has(match.route) ? receivedNs : 0,
    };
    res.onAborted(() => {
      pending.aborted = true;
      this.#hanging.delete(pending);
    });
    if (method === 'GET') {
      this.#lanes.submit(laneOf(pending), pending);
      return;
    }
    const declared = req.getHeader('content-length');
    if (declared !== '' && Number(declared) > this.#services.maxBodyBytes) {
      this.#finish(pending, tooLarge(this.#services.maxBodyBytes), true);
      return;
    }
    res.onData((chunk, isLast) => {
      try {
        this.#onBodyChunk(pending, chunk, isLast);
      } catch (error) {
        this.#services.logger.error({ err: error, path: pending.rawPath.slice(0, 256) }, 'REST body read failed');
        if (!pending.done && !pending.aborted) {
          pending.done = true;
          answerQuietly(res, nestedError(500, 'internal_server_error', 'internal server error'));
        }
      }
    });
  }

  /** One streamed body chunk (a uWS callback: its caller guards it). */
  #onBodyChunk(pending: PendingRequest, chunk: ArrayBuffer, isLast: boolean): void {
    const res = pending.res;
    if (pending.done || pending.aborted) return;
    pending.bodyBytes += chunk.byteLength;
    if (pending.bodyBytes > this.#services.maxBodyBytes) {
      res.cork(() => this.#finish(pending, tooLarge(this.#services.maxBodyBytes), true));
      return;
    }
    // uWS neuters the chunk after this callback: copy it.
    pending.chunks.push(Buffer.from(new Uint8Array(chunk)));
    if (isLast) {
      pending.body = pending.chunks.length === 1 ? pending.chunks[0] : Buffer.concat(pending.chunks);
      pending.chunks = [];
      res.cork(() => this.#lanes.submit(laneOf(pending), pending));
    }
  }

  #process(pending: PendingRequest, bodyBytes: Buffer): void {
    let reply: RestReply;
    try {
      const outcome = this.#dispatch(pending, bodyBytes);
      if (outcome === null) return; // a fault took over the answer
      reply = outcome;
    } catch (error) {
      if (error instanceof RestError) reply = error.reply;
      else {
        this.#services.logger.error({ err: error, method: pending.method, path: pending.rawPath }, 'REST handler failed');
        reply = nestedError(500, 'internal_server_error', 'internal server error');
      }
    }
    this.#finish(pending, reply, false);
  }

  /** Runs the request's checks and handler; null when a fault decided the answer (or its absence). */
  #dispatch(pending: PendingRequest, bodyBytes: Buffer): RestReply | null {
    const services = this.#services;
    const route = pending.route;
    let key: ApiKeyRecord | null = null;
    const anyHeader = pending.keyId !== '' || pending.timestamp !== '' || pending.signature !== '';
    if (route.auth || anyHeader) {
      const result: AuthResult = services.authenticator.authenticate(pending.keyId, pending.timestamp, pending.signature, pending.method, pending.rawPath);
      if (result.failure !== AuthFailure.NONE) {
        // Public routes ignore a bad signature (the TS client signs everything when configured).
        if (route.auth) return { status: 401, body: AUTH_FAILURE_BODIES[result.failure as Exclude<AuthFailure, 0>] };
      } else key = result.key;
    }
    if (key !== null && !scopesAllow(key.scopes, route.scope)) {
      return nestedError(403, 'forbidden', `API key lacks the scope this endpoint needs (${scopeText(route.scope)})`, 'insufficient_scope');
    }
    const query = new Query(pending.rawQuery);
    let body: unknown = undefined;
    if (route.body !== 'none') {
      if (bodyBytes.length === 0) {
        if (route.body === 'json') return flatError(400, 'invalid_content_type', 'request needs a JSON body with Content-Type: application/json');
      } else {
        if (pending.contentType !== '' && !pending.contentType.toLowerCase().includes('json')) {
          return flatError(400, 'invalid_content_type', `Content-Type ${pending.contentType} is not application/json`);
        }
        body = decodeJsonBody(bodyBytes);
      }
    }
    if (pending.receivedNs !== 0) this.#probe!.noteOrder(body, pending.receivedNs);
    const ctx: RestContext = {
      method: pending.method,
      routeTemplate: route.canonicalPath,
      relativePath: pending.relativePath,
      params: pending.params,
      query,
      key,
      body,
      services,
      acceptLanguage: pending.acceptLanguage,
    };
    const { cost, perItem } = costOf(pending.method, route.canonicalPath);
    const items = perItem && route.billedItems !== undefined ? Math.max(1, route.billedItems(ctx)) : 1;
    const callerId = key !== null ? key.keyId : `ip:${pending.remoteAddress}`;
    if (!services.rateLimiter.admit(callerId, key !== null ? key.tier : 'basic', bucketOf(pending.method, route.canonicalPath), cost * items)) {
      return TOO_MANY_REQUESTS;
    }
    if (!services.faults.restActive) return route.handle(ctx);
    const decision = services.faults.decideRest({
      method: pending.method,
      routeTemplate: route.canonicalPath,
      relativePath: pending.relativePath,
      keyId: key !== null ? key.keyId : null,
      orderEntry: route.orderEntry,
    });
    const kind = decision.kind;
    const status = decision.status;
    const delayMs = decision.delayMs;
    const mode = decision.mode;
    switch (kind) {
      case null:
        return route.handle(ctx);
      case 'rest_error':
        return faultErrorReply(status);
      case 'rest_hang':
        this.#hang(pending);
        return null;
      case 'rest_close':
        closeQuietly(pending);
        return null;
      case 'rest_delay': {
        const reply = safeHandle(route, ctx, services);
        this.#delay(pending, reply, delayMs);
        return null;
      }
      case 'ambiguous_order':
        safeHandle(route, ctx, services); // the order IS applied; its answer is lost
        services.logger.debug({ path: pending.rawPath, mode }, 'fault: ambiguous order entry');
        if (mode === 'error') return faultErrorReply(status);
        if (mode === 'hang') this.#hang(pending);
        else closeQuietly(pending);
        return null;
    }
  }

  #hang(pending: PendingRequest): void {
    pending.done = true;
    this.#hanging.add(pending);
  }

  #delay(pending: PendingRequest, reply: RestReply, delayMs: number): void {
    pending.done = true; // nothing else may answer meanwhile
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (pending.aborted || this.#closed) return;
      answerQuietly(pending.res, reply, false);
    }, delayMs);
    this.#timers.add(timer);
  }

  #finish(pending: PendingRequest, reply: RestReply, closeConnection: boolean): void {
    if (pending.done || pending.aborted) return;
    pending.done = true;
    writeReply(pending.res, reply, closeConnection);
  }
}

/** The caller a request counts against for fairness: the key it names, else its address. */
function laneOf(pending: PendingRequest): string {
  return pending.keyId !== '' ? `k:${pending.keyId}` : `a:${pending.remoteAddress}`;
}

function safeHandle(route: RouteDef, ctx: RestContext, services: SimServices): RestReply {
  try {
    return route.handle(ctx);
  } catch (error) {
    if (error instanceof RestError) return error.reply;
    services.logger.error({ err: error, path: ctx.relativePath }, 'REST handler failed');
    return nestedError(500, 'internal_server_error', 'internal server error');
  }
}

function writeReply(res: HttpResponse, reply: RestReply, closeConnection = false): void {
  res.writeStatus(statusLine(reply.status));
  if (reply.body === null) {
    res.endWithoutBody(0, closeConnection);
    return;
  }
  res.writeHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(reply.body, closeConnection);
}

/** An answer that never throws (a timer or a last resort after a bug): the reply if the response still takes one. */
function answerQuietly(res: HttpResponse, reply: RestReply, closeConnection = true): void {
  try {
    res.cork(() => writeReply(res, reply, closeConnection));
  } catch {
    // already answered or aborted: nothing more can be said on this response
  }
}

/** A path for an error message: short ones verbatim, long ones by length (no unbounded echo). */
function echoedPath(rawPath: string): string {
  return rawPath.length <= 256 ? rawPath : `a path of ${rawPath.length} characters`;
}

function closeQuietly(pending: PendingRequest): void {
  pending.done = true;
  if (pending.aborted) return;
  pending.aborted = true;
  pending.res.close();
}

function tooLarge(maxBodyBytes: number): RestReply {
  return flatError(413, 'payload_too_large', `request body exceeds ${maxBodyBytes} bytes`);
}

function faultErrorReply(status: number): RestReply {
  return status === 503
    ? nestedError(503, 'service_unavailable', 'service temporarily unavailable')
    : nestedError(status, 'internal_server_error', 'internal server error');
}

function scopeText(scope: string): string {
  switch (scope) {
    case 'trade':
      return 'write or write::trade';
    case 'balance':
      return 'read or read::portfolio_balance';
    default:
      return scope;
  }
}
