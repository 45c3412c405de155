/**
 * The WebSocket endpoints /trade-api/ws/v2 and its Margin twin /trade-api/ws/v2/margin on uWebSockets.js: authenticates the HTTP upgrade with
 * the same RSA-PSS scheme as REST (signed path `/trade-api/ws/v2`, method GET; websocket.md §1.2)
 * and answers a failed handshake with HTTP 401 and the REST 401 body, before any upgrade; then
 * hands text frames to the command handler and sends a `heartbeat` ping every 10 s (§1.3). It owns
 * connection lifecycle only; subscriptions and fan-out live in the hub.
 *
 * Frames above CLIENT_FRAME_BYTES_MAX (1 MiB, protocol.ts) are refused by uWS itself, which drops
 * the connection before any JavaScript sees them. Unmasked client frames: RFC 6455 §5.1
 * says the server must close the connection; uWS does not look at the MASK bit (it always reads a
 * 4-byte key) and its API never shows it, so this server cannot honour that rule (see
 * test/sim/server/ws-bounds.test.ts, which records what uWS does).
 */

import {
  ACCESS_KEY_HEADER,
  ACCESS_SIGNATURE_HEADER,
  ACCESS_TIMESTAMP_HEADER,
  AUTH_FAILURE_BODIES,
  AuthFailure,
  type Authenticator,
} from '../../auth/index.ts';
import type { Logger } from 'pino';
import type { TemplatedApp, WebSocket } from '../../../net/uws.ts';
import { CommandHandler, errorText } from './commands.ts';
import type { WsHub } from './hub.ts';
import { CLIENT_FRAME_BYTES_MAX, HEARTBEAT_PAYLOAD, MARGIN_WS_PATH, WS_PATH, WsError } from './protocol.ts';
import { WsSession, type SessionUserData } from './session.ts';

export interface WsServerOptions {
  hub: WsHub;
  authenticator: Authenticator;
  now: () => number;
  logger: Logger;
  /** Server ping interval, ms (exchange: 10 s). */
  pingIntervalMs: number;
  /** Largest client frame accepted, bytes, at most CLIENT_FRAME_BYTES_MAX; larger frames end the connection (uWS). */
  maxPayloadBytes: number;
}

export class WsServer {
  readonly #hub: WsHub;
  readonly #authenticator: Authenticator;
  readonly #logger: Logger;
  readonly #commands: CommandHandler;
  readonly #pingIntervalMs: number;
  readonly #maxPayloadBytes: number;
  #pingTimer: NodeJS.Timeout | null = null;
  #nextSessionId = 1;

  constructor(options: WsServerOptions) {
    this.#hub = options.hub;
    this.#authenticator = options.authenticator;
    this.#logger = options.logger;
    this.#commands = new CommandHandler(options.hub, options.now, options.logger);
    this.#pingIntervalMs = options.pingIntervalMs;
    this.#maxPayloadBytes = Math.min(options.maxPayloadBytes, CLIENT_FRAME_BYTES_MAX);
  }

  attach(app: TemplatedApp, uwsDisabledCompression: number): void {
    this.#attachPath(app, uwsDisabledCompression, WS_PATH, 'predictions');
    this.#attachPath(app, uwsDisabledCompression, MARGIN_WS_PATH, 'margin');
    this.#pingTimer = setInterval(() => this.#pingAll(), this.#pingIntervalMs);
    this.#pingTimer.unref();
  }

  /** One endpoint: the same handshake and commands; the session remembers which exchange it is on. */
  #attachPath(app: TemplatedApp, uwsDisabledCompression: number, path: string, exchange: 'predictions' | 'margin'): void {
    app.ws<SessionUserData>(path, {
      compression: uwsDisabledCompression,
      maxPayloadLength: this.#maxPayloadBytes,
      // The hub enforces the per-connection limit itself (error 25); uWS must never drop silently.
      maxBackpressure: Math.max(this.#hub.bufferLimitBytes * 4, 64 * 1024 * 1024),
      closeOnBackpressureLimit: false,
      idleTimeout: 120,
      sendPingsAutomatically: false,
      upgrade: (res, req, context) => {
        const keyId = req.getHeader(ACCESS_KEY_HEADER);
        const timestamp = req.getHeader(ACCESS_TIMESTAMP_HEADER);
        const signature = req.getHeader(ACCESS_SIGNATURE_HEADER);
        const secKey = req.getHeader('sec-websocket-key');
        const secProtocol = req.getHeader('sec-websocket-protocol');
        const secExtensions = req.getHeader('sec-websocket-extensions');
        const result = this.#authenticator.authenticate(keyId, timestamp, signature, 'GET', req.getUrl());
        if (result.failure !== AuthFailure.NONE) {
          res.writeStatus('401 Unauthorized');
          res.writeHeader('Content-Type', 'application/json; charset=utf-8');
          res.end(AUTH_FAILURE_BODIES[result.failure as Exclude<AuthFailure, 0>], true);
          return;
        }
        const session = new WsSession(this.#nextSessionId++, result.key!, exchange);
        res.upgrade<SessionUserData>({ session }, secKey, secProtocol, secExtensions, context);
      },
      open: (ws: WebSocket<SessionUserData>) => {
        const session = ws.getUserData().session;
        session.ws = ws;
        session.open = true;
        this.#hub.addSession(session);
        this.#logger.debug({ session: session.id, keyId: session.key.keyId }, 'websocket session opened');
      },
      message: (ws: WebSocket<SessionUserData>, message: ArrayBuffer, isBinary: boolean) => {
        const session = ws.getUserData().session;
        if (isBinary) {
          this.#hub.reply(session, errorText(0, WsError.UNABLE_TO_PROCESS));
          return;
        }
        try {
          this.#commands.receive(session, Buffer.from(message).toString('utf8'));
        } catch (error) {
          this.#logger.error({ err: error, session: session.id }, 'websocket command failed');
          this.#hub.reply(session, errorText(0, WsError.UNABLE_TO_PROCESS));
        }
      },
      close: (ws: WebSocket<SessionUserData>, code: number) => {
        const session = ws.getUserData().session;
        session.ws = null;
        this.#hub.removeSession(session);
        this.#logger.debug({ session: session.id, code }, 'websocket session closed');
      },
    });
  }

  #pingAll(): void {
    for (const session of this.#hub.sessions) {
      if (session.open && session.ws !== null) session.ws.ping(HEARTBEAT_PAYLOAD);
    }
  }

  /** Stops pings and closes every connection (abruptly: the simulator is going away). */
  close(): void {
    if (this.#pingTimer !== null) clearInterval(this.#pingTimer);
    this.#pingTimer = null;
    this.#commands.work.close();
    for (const session of [...this.#hub.sessions]) {
      const ws = session.ws;
      session.open = false;
      if (ws !== null) ws.close();
    }
  }
}
