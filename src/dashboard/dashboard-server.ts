/**
 * The operator's dashboard server: uWebSockets.js (src/net/uws.ts) in the runtime's process, on
 * its own port, loopback by default. GET / serves the one self-contained page (page.html); /ws
 * pushes the operator snapshot (OperatorSnapshots) to each client at the snapshot's period, the
 * JSON rendered once per tick and only when a client is connected.
 *
 * Every request needs the token (query `token`), compared in constant time: none is 401, a wrong
 * one 403, on the page and on the WebSocket upgrade alike. Bounded: at most `clientsMax`
 * WebSockets (503 beyond), inbound messages of at most `inboundBytesMax` (uWS closes the
 * connection above it) and `inboundPerTickMax` per tick (closed 1008 above it), and a client
 * whose send buffer holds more than `sendBufferBytesMax` misses updates (counted) instead of
 * buffering them. The only command is {"type":"kill"}: it calls `onKill`, which the main job wires
 * to the same kill path as SIGUSR2. The token never reaches a log.
 *
 * In a fleet (option `fleet`), the server also pushes {"type":"fleet"} messages: every runtime of
 * the fleet as FleetView reads them, after each read, under the same send-buffer rule. The view
 * reads only while a client is connected, and the server stops it (and its connection) on stop.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadUws } from '../net/uws.ts';
import type { HttpRequest, HttpResponse, TemplatedApp, UsListenSocket, WebSocket } from '../net/uws.ts';
import type { OperatorSnapshots, OperatorView } from './operator-snapshot.ts';
import type { FleetState, FleetView } from './fleet-view.ts';

export interface DashboardServerOptions {
  host: string;
  /** 0: a free port (read `port` after start). */
  port: number;
  /** The secret every request must carry; never logged. */
  token: string;
  snapshots: OperatorSnapshots;
  /** The kill switch: the caller's normal kill path (journal the kill, cancel everything). */
  onKill: (source: string) => void;
  /** Told about failures (never with the token). */
  onError?: (error: unknown, what: string) => void;
  /** Every runtime of the fleet (null: not in a fleet, no fleet page); the server owns it from here and stops it. */
  fleet?: FleetView | null;
  clientsMax?: number;
  inboundBytesMax?: number;
  inboundPerTickMax?: number;
  sendBufferBytesMax?: number;
}

export const DASHBOARD_DEFAULTS = {
  /** A handful of operators' tabs; each costs one send per tick. */
  clientsMax: 8,
  /** The one command is 16 bytes of JSON. */
  inboundBytesMax: 1_024,
  /** More messages than this in one push period is a misbehaving client. */
  inboundPerTickMax: 20,
  /** About 4 views of a busy runtime: beyond it the client is slow and misses updates. */
  sendBufferBytesMax: 256 * 1024,
} as const;

export interface DashboardStats {
  clients: number;
  pushes: number;
  /** Fleet messages sent (one per client per fleet read). */
  fleetPushes: number;
  /** Updates not sent to a client whose buffer was full. */
  dropped: number;
  /** Requests and upgrades refused (token missing or wrong, client cap). */
  refused: number;
  kills: number;
}

interface ClientData {
  id: number;
  inbound: number;
}

const PAGE = readFileSync(new URL('./page.html', import.meta.url), 'utf8');
// No script, style or connection from anywhere but this page and its own WebSocket.
const PAGE_HEADERS: readonly [string, string][] = [
  ['content-type', 'text/html; charset=utf-8'],
  ['cache-control', 'no-store'],
  ['referrer-policy', 'no-referrer'],
  ['x-frame-options', 'DENY'],
  ['x-content-type-options', 'nosniff'],
  ['content-security-policy', "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"],
];
const KILL_REPLY = JSON.stringify({ type: 'killAck' });

export class DashboardServer {
  readonly #options: DashboardServerOptions;
  readonly #tokenDigest: Buffer;
  readonly #app: TemplatedApp;
  readonly #clients = new Set<WebSocket<ClientData>>();
  readonly #limits: { clientsMax: number; inboundBytesMax: number; inboundPerTickMax: number; sendBufferBytesMax: number };
  #listenSocket: UsListenSocket | null = null;
  #port = -1;
  #nextId = 1;
  #stopped = false;
  readonly stats: DashboardStats = { clients: 0, pushes: 0, fleetPushes: 0, dropped: 0, refused: 0, kills: 0 };

  private constructor(options: DashboardServerOptions) {
    if (options.token.length === 0) throw new TypeError('dashboard: an empty token');
    this.#options = options;
    this.#tokenDigest = digest(options.token);
    this.#limits = {
      clientsMax: options.clientsMax ?? DASHBOARD_DEFAULTS.clientsMax,
      inboundBytesMax: options.inboundBytesMax ?? DASHBOARD_DEFAULTS.inboundBytesMax,
      inboundPerTickMax: options.inboundPerTickMax ?? DASHBOARD_DEFAULTS.inboundPerTickMax,
      sendBufferBytesMax: options.sendBufferBytesMax ?? DASHBOARD_DEFAULTS.sendBufferBytesMax,
    };
    const uws = loadUws();
    this.#app = uws.App();
    this.#routes();
    options.snapshots.onRefresh((view) => this.#push(view));
    options.fleet?.onUpdate((state) => this.#pushFleet(state));
  }

  /** Listens; rejects when the address cannot be bound. The snapshots' timer is the caller's. */
  static start(options: DashboardServerOptions): Promise<DashboardServer> {
    let server: DashboardServer;
    try {
      server = new DashboardServer(options);
    } catch (error) {
      options.fleet?.stop(); // ours from here: its connection must not outlive a failed start
      throw error;
    }
    const uws = loadUws();
    return new Promise((resolve, reject) => {
      server.#app.listen(options.host, options.port, (socket) => {
        if (socket === false) {
          options.fleet?.stop();
          reject(new Error(`dashboard: could not listen on ${options.host}:${options.port} (in use, or not a local address)`));
          return;
        }
        server.#listenSocket = socket;
        server.#port = uws.us_socket_local_port(socket as unknown as Parameters<typeof uws.us_socket_local_port>[0]);
        resolve(server);
      });
    });
  }

  get port(): number {
    return this.#port;
  }

  /** The page's address without the token (append `?token=` to open it). */
  get url(): string {
    const host = this.#options.host.includes(':') ? `[${this.#options.host}]` : this.#options.host;
    return `http://${host}:${this.#port}/`;
  }

  /** Closes the listener and every WebSocket (1001). */
  stop(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#stopped = true;
    const uws = loadUws();
    if (this.#listenSocket !== null) uws.us_listen_socket_close(this.#listenSocket);
    this.#listenSocket = null;
    for (const ws of [...this.#clients]) {
      try {
        ws.end(1001, 'dashboard stopping');
      } catch {
        // Already closed by the peer in the meantime.
      }
    }
    this.#clients.clear();
    this.#options.fleet?.stop();
    // Open HTTP keep-alive connections end with the app where uWS offers it (20.4x+).
    (this.#app as unknown as { close?: () => void }).close?.();
    return Promise.resolve();
  }

  #routes(): void {
    const limits = this.#limits;
    this.#app.get('/', (res, req) => {
      if (!this.#authorized(res, req)) return;
      res.cork(() => {
        res.writeStatus('200 OK');
        for (const [name, value] of PAGE_HEADERS) res.writeHeader(name, value);
        res.end(PAGE);
      });
    });
    this.#app.ws<ClientData>('/ws', {
      maxPayloadLength: limits.inboundBytesMax,
      // uWS drops a send above this; the push checks the buffer first and counts the drop.
      maxBackpressure: limits.sendBufferBytesMax * 2,
      closeOnBackpressureLimit: false,
      idleTimeout: 120,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => {
        const key = req.getHeader('sec-websocket-key');
        const protocol = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        if (!this.#authorized(res, req)) return;
        if (this.#clients.size >= limits.clientsMax) {
          this.stats.refused++;
          res.cork(() => res.writeStatus('503 Service Unavailable').writeHeader('content-type', 'text/plain; charset=utf-8').end(`dashboard: at most ${limits.clientsMax} clients\n`));
          return;
        }
        res.upgrade<ClientData>({ id: this.#nextId++, inbound: 0 }, key, protocol, extensions, context);
      },
      open: (ws) => {
        this.#clients.add(ws);
        this.stats.clients = this.#clients.size;
        const snapshots = this.#options.snapshots;
        ws.send(JSON.stringify({ type: 'hello', pushIntervalMs: snapshots.intervalMs, history: snapshots.pnlHistory(), view: snapshots.view }), false);
        const fleet = this.#options.fleet ?? null;
        if (fleet !== null && fleet.state !== null) ws.send(fleetMessage(fleet.state), false);
        fleet?.setWatched(true);
      },
      message: (ws, message, isBinary) => this.#onMessage(ws, message, isBinary),
      close: (ws) => {
        this.#clients.delete(ws);
        this.stats.clients = this.#clients.size;
        if (this.#clients.size === 0) this.#options.fleet?.setWatched(false);
      },
    });
    this.#app.any('/*', (res) => {
      res.cork(() => res.writeStatus('404 Not Found').writeHeader('content-type', 'text/plain; charset=utf-8').end('not found: the dashboard is at /?token=...\n'));
    });
  }

  /** Answers 401 (no token) or 403 (wrong token) and returns false; true when the token matches. */
  #authorized(res: HttpResponse, req: HttpRequest): boolean {
    // uWS hands the value percent-decoded (a token may hold any character the URL encodes).
    const given = req.getQuery('token');
    if (given === undefined || given === '') {
      this.stats.refused++;
      res.cork(() => res.writeStatus('401 Unauthorized').writeHeader('content-type', 'text/plain; charset=utf-8').end('dashboard: a token is required (?token=...)\n'));
      return false;
    }
    // Digests first: equal lengths for timingSafeEqual, and no early exit on the first differing byte.
    if (!timingSafeEqual(digest(given), this.#tokenDigest)) {
      this.stats.refused++;
      res.cork(() => res.writeStatus('403 Forbidden').writeHeader('content-type', 'text/plain; charset=utf-8').end('dashboard: wrong token\n'));
      return false;
    }
    return true;
  }

  #onMessage(ws: WebSocket<ClientData>, message: ArrayBuffer, isBinary: boolean): void {
    const data = ws.getUserData();
    if (++data.inbound > this.#limits.inboundPerTickMax) {
      ws.end(1008, 'too many messages');
      return;
    }
    let command: unknown;
    try {
      if (isBinary) throw new Error('binary');
      command = JSON.parse(Buffer.from(message).toString('utf8'));
    } catch {
      this.#reply(ws, 'commands are JSON text: {"type":"kill"}');
      return;
    }
    const type = typeof command === 'object' && command !== null ? (command as { type?: unknown }).type : undefined;
    if (type !== 'kill') {
      this.#reply(ws, 'unknown command: the only command is {"type":"kill"}');
      return;
    }
    this.stats.kills++;
    try {
      this.#options.onKill('dashboard');
    } catch (error) {
      this.#options.onError?.(error, 'kill switch');
      this.#reply(ws, 'kill switch failed; see the log');
      return;
    }
    ws.send(KILL_REPLY, false);
  }

  #reply(ws: WebSocket<ClientData>, message: string): void {
    ws.send(JSON.stringify({ type: 'error', message }), false);
  }

  /** One JSON text per tick for every client whose buffer has room; the others miss this one. */
  #push(view: OperatorView): void {
    for (const ws of this.#clients) ws.getUserData().inbound = 0;
    if (this.#clients.size === 0) return;
    this.stats.pushes += this.#broadcast(JSON.stringify({ type: 'view', view }));
  }

  /** After each fleet read, under the same rule as the views. */
  #pushFleet(state: FleetState): void {
    if (this.#stopped || this.#clients.size === 0) return;
    this.stats.fleetPushes += this.#broadcast(fleetMessage(state));
  }

  /** Sends `text` to every client whose buffer has room (the others miss it, counted); returns how many got it. */
  #broadcast(text: string): number {
    const limit = this.#limits.sendBufferBytesMax;
    let sent = 0;
    for (const ws of this.#clients) {
      if (ws.getBufferedAmount() > limit) {
        this.stats.dropped++;
        continue;
      }
      // 2: dropped by uWS at maxBackpressure (never expected after the check above).
      if (ws.send(text, false) === 2) this.stats.dropped++;
      else sent++;
    }
    return sent;
  }
}

function fleetMessage(state: FleetState): string {
  return JSON.stringify({ type: 'fleet', fleet: state });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
