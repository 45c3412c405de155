/**
 * The fallback server for hosts where uWebSockets.js's native binary cannot load (its Node 22/24
 * builds need glibc 2.38; README, Dependencies): exactly the part of the uWS.js API this project
 * uses, on node:http and the `ws` package. src/net/uws.ts hands it out in place of uWS.js, and
 * says so; nothing else imports it. Slower than uWS.js (README, Performance), never used when the
 * native binary loads, unless UWS_FORCE_FALLBACK=1.
 *
 * The subset: App() with get/post/put/del/patch/options/head/any/ws/listen/publish/
 * numSubscribers/close; us_listen_socket_close, us_socket_local_port; DISABLED and the other
 * compression constants (any compression but DISABLED turns permessage-deflate on). Requests and
 * responses: uws-fallback-http.ts; WebSockets: uws-fallback-ws.ts; routes: uws-fallback-route.ts.
 * A request no route takes gets 404; a request head above `headBytesMax` gets 431 (node's parser).
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { FallbackHttpRequest, FallbackHttpResponse, type RecognizedString } from './uws-fallback-http.ts';
import { FallbackRouter } from './uws-fallback-route.ts';
import { BEHAVIOR_DEFAULTS, FallbackTopics, FallbackWebSocket, type FallbackBehavior } from './uws-fallback-ws.ts';

export interface FallbackOptions {
  /** Longest request head (request line and headers), bytes; longer ones are answered 431. */
  headBytesMax: number;
}

type HttpHandler = (res: FallbackHttpResponse, req: FallbackHttpRequest) => void;

interface WsRoute {
  readonly behavior: FallbackBehavior<unknown>;
  readonly server: WebSocketServer;
}

/** What `listen` hands its callback: the fallback's us_listen_socket. */
export interface FallbackListenSocket {
  readonly server: Server;
  readonly port: number;
}

/** uWS's idle timeout of an HTTP keep-alive connection, ms. */
const HTTP_IDLE_TIMEOUT_MS = 10_000;

export class FallbackApp {
  readonly #options: FallbackOptions;
  readonly #http = new FallbackRouter<HttpHandler>();
  readonly #ws = new FallbackRouter<WsRoute>();
  readonly #topics = new FallbackTopics();
  readonly #servers = new Set<Server>();
  readonly #sockets = new Set<FallbackWebSocket<unknown>>();

  constructor(options: FallbackOptions) {
    this.#options = options;
  }

  get(pattern: RecognizedString, handler: HttpHandler): this {
    return this.#add('GET', pattern, handler);
  }
  post(pattern: RecognizedString, handler: HttpHandler): this {
    return this.#add('POST', pattern, handler);
  }
  put(pattern: RecognizedString, handler: HttpHandler): this {
    return this.#add('PUT', pattern, handler);
  }
  del(pattern: RecognizedString, handler: HttpHandler): this {
    return this.#add('DELETE', pattern, handler);
  }
  patch(pattern: RecognizedString, handler: HttpHandler): this {
    return this.#add('PATCH', pattern, handler);
  }
  options(pattern: RecognizedString, handler: HttpHandler): this {
    return this.#add('OPTIONS', pattern, handler);
  }
  head(pattern: RecognizedString, handler: HttpHandler): this {
    return this.#add('HEAD', pattern, handler);
  }
  any(pattern: RecognizedString, handler: HttpHandler): this {
    return this.#add('*', pattern, handler);
  }

  ws<UserData>(pattern: RecognizedString, behavior: FallbackBehavior<UserData>): this {
    const server = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      maxPayload: behavior.maxPayloadLength ?? BEHAVIOR_DEFAULTS.maxPayloadLength,
      perMessageDeflate: (behavior.compression ?? 0) !== 0,
    });
    this.#ws.add('GET', String(pattern), { behavior: behavior as FallbackBehavior<unknown>, server });
    return this;
  }

  /** listen(host, port, cb) or listen(port, cb); the callback gets the listen socket, or false. */
  listen(...args: unknown[]): this {
    const callback = args[args.length - 1] as (socket: FallbackListenSocket | false) => void;
    const host = typeof args[0] === 'string' ? args[0] : undefined;
    const port = Number(typeof args[0] === 'string' ? args[1] : args[0]);
    const server = createServer({ maxHeaderSize: this.#options.headBytesMax, noDelay: true }, (request, reply) => this.#onRequest(request, reply));
    server.keepAliveTimeout = HTTP_IDLE_TIMEOUT_MS;
    server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => this.#onUpgrade(request, socket, head));
    const failed = (): void => callback(false);
    server.once('error', failed);
    server.listen({ host: host === '' ? undefined : host, port }, () => {
      server.off('error', failed);
      server.on('error', () => {}); // a listening server's later errors belong to its connections
      this.#servers.add(server);
      server.once('close', () => this.#servers.delete(server));
      const address = server.address();
      callback({ server, port: typeof address === 'object' && address !== null ? address.port : port });
    });
    return this;
  }

  publish(topic: RecognizedString, message: RecognizedString, isBinary = false): boolean {
    return this.#topics.publish(String(topic), message, isBinary, null);
  }

  numSubscribers(topic: RecognizedString): number {
    return this.#topics.count(String(topic));
  }

  /** Stops listening and ends every connection, HTTP and WebSocket (uWS's app.close). */
  close(): this {
    for (const server of this.#servers) {
      server.close();
      server.closeAllConnections();
    }
    for (const ws of [...this.#sockets]) ws.close();
    return this;
  }

  #add(method: string, pattern: RecognizedString, handler: HttpHandler): this {
    this.#http.add(method, String(pattern), handler);
    return this;
  }

  #onRequest(request: IncomingMessage, reply: ServerResponse): void {
    this.#dispatch(new FallbackHttpRequest(request), new FallbackHttpResponse(request, reply, request.socket));
  }

  /** The best matching route, then the next while handlers yield; 404 when none takes it. */
  #dispatch(req: FallbackHttpRequest, res: FallbackHttpResponse): void {
    for (const { route, parameters } of this.#http.match(req.getCaseSensitiveMethod().toUpperCase(), req.getUrl())) {
      req.setRoute(route.parameterNames, parameters);
      req.yielded = false;
      route.handler(res, req);
      if (!req.yielded) return;
    }
    if (!res.finished) res.writeStatus('404 File Not Found').end();
  }

  /** A WebSocket upgrade to a ws route goes to its behavior; any other upgrade request is plain HTTP. */
  #onUpgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', () => {}); // node took its own listener off: a reset must not end the process
    const req = new FallbackHttpRequest(request);
    const res = new FallbackHttpResponse(request, null, socket);
    const isWebSocket = request.method === 'GET' && (request.headers.upgrade ?? '').toLowerCase() === 'websocket';
    const match = isWebSocket ? this.#ws.match('GET', req.getUrl())[0] : undefined;
    if (match === undefined) {
      this.#dispatch(req, res);
      return;
    }
    const route = match.route.handler;
    req.setRoute(match.route.parameterNames, match.parameters);
    res.upgradeHandler = (userData) => this.#accept(route, request, socket, head, userData);
    const context = {}; // uWS's us_socket_context_t: opaque to handlers, handed back to upgrade()
    if (route.behavior.upgrade !== undefined) route.behavior.upgrade(res, req, context);
    else res.upgrade({}, '', '', '', context);
  }

  #accept(route: WsRoute, request: IncomingMessage, socket: Socket, head: Buffer, userData: unknown): void {
    if (socket.destroyed) return;
    route.server.handleUpgrade(request, socket, head, (client) => {
      const ws = new FallbackWebSocket(client, socket, userData, route.behavior, this.#topics, (closed) => this.#sockets.delete(closed));
      this.#sockets.add(ws);
      route.behavior.open?.(ws);
    });
  }
}

/** The module object `loadUws()` returns in place of uWS.js. */
export function createFallbackUws(options: FallbackOptions): Record<string, unknown> {
  return {
    App: () => new FallbackApp(options),
    SSLApp: () => {
      throw new Error('uWS fallback: SSLApp is not part of the fallback (this project serves plain HTTP)');
    },
    us_listen_socket_close: (socket: FallbackListenSocket) => {
      socket.server.close();
    },
    us_socket_local_port: (socket: FallbackListenSocket) => socket.port,
    DISABLED: 0,
    SHARED_COMPRESSOR: 1,
    SHARED_DECOMPRESSOR: 256,
    DEDICATED_COMPRESSOR: 0x00f0,
    DEDICATED_DECOMPRESSOR: 0xff00,
  };
}
