/**
 * One WebSocket session to the exchange over our RFC 6455 client (src/net/raw-websocket.ts; undici's
 * WebSocket, measured slower per frame, is bench/ws-client's baseline): a signed handshake
 * (KALSHI-ACCESS-* headers over `<ms>GET<path>`, the URL's path without its query,
 * spec/websocket.md §1.2), messages handed to the handler as the socket's bytes, reconnects with
 * exponential backoff and full jitter, and dead-connection detection. It owns the socket and its
 * life cycle only; it never decodes frames, never knows about subscriptions and never retries a
 * command.
 *
 * UTF-8: the client leaves the check to the handler (`utf8: 'listener'`): onFrame returns false
 * for a text message that is not UTF-8 and the client fails the connection with 1007 (the Feed's
 * decoder proves UTF-8 while it scans, decoders/json-bytes.ts). Binary messages (the exchange
 * sends text) go to the same handler; their verdict is only counted.
 *
 * Keep-alive: the client answers the server's pings itself (test/feed/ws-session.test.ts checks
 * it against a uWS server that counts pongs). We observe pings and pongs (its oncontrol
 * callback), count every inbound frame, and on the coarse tick send our own ping after
 * `idlePingMs` of silence and drop the connection after `deadAfterMs` of silence (the server
 * pings every 10 s, so silence means a dead path). The tick comes from the owner (the Feed's one
 * shared tick): no timer per session for liveness.
 */

import { Backoff } from './backoff.ts';
import { RawWebSocket } from '../net/index.ts';
import { nowNs } from '../telemetry/index.ts';
import type { FeedLogger } from './feed-logger.ts';

export const ConnectionState = {
  IDLE: 'idle',
  CONNECTING: 'connecting',
  OPEN: 'open',
  /** Lost; a reconnect is scheduled. */
  RECONNECTING: 'reconnecting',
  /** Stopped by the owner; no reconnect. */
  CLOSED: 'closed',
} as const;
export type ConnectionState = (typeof ConnectionState)[keyof typeof ConnectionState];

export interface WsSessionHandler {
  /** The socket is open: (re)subscribe. */
  onOpen(): void;
  /**
   * One message as bytes[start, end) of the socket's buffer, valid during the call only (hot
   * path). Returns false when the bytes are not UTF-8 (the session then fails the connection with
   * 1007). Must not throw.
   */
  onFrame(bytes: Buffer, start: number, end: number): boolean;
  /** The socket is gone (closed, failed or declared dead); a reconnect follows unless stopped. */
  onClose(code: number, reason: string): void;
  onState(state: ConnectionState): void;
}

/** Builds the handshake headers for a connect at `timestampMs` to `path`. */
export type HandshakeSigner = (timestampMs: number, path: string) => Record<string, string>;

export interface WsSessionOptions {
  url: string;
  /** null: connect without authentication headers. */
  sign: HandshakeSigner | null;
  handler: WsSessionHandler;
  logger: FeedLogger;
  /** Wall clock, Unix ms (timestamps the signature; times reconnect stability). */
  nowMs: () => number;
  /** Uniform [0, 1): jitter source; seededRandom in tests. */
  random: () => number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** Ping the server after this much inbound silence, ms. */
  idlePingMs: number;
  /** Drop the connection after this much inbound silence, ms. */
  deadAfterMs: number;
  /** A connect not open after this long is abandoned, ms. */
  connectTimeoutMs: number;
  /** A connection open at least this long resets the backoff when it drops, ms. */
  stableAfterMs: number;
  /** Longest stretch, us, this session's messages hold the event loop per turn (RawWebSocket); 0: no limit. */
  turnBudgetUs?: number;
}

/** What the Feed needs of a session: WsSession, or a scripted fake in tests. */
export interface FeedSession {
  readonly state: ConnectionState;
  readonly isOpen: boolean;
  start(): void;
  stop(): void;
  send(text: string): boolean;
  reconnect(reason: string): void;
  onTick(nowMs: number): void;
}

export class WsSession implements FeedSession {
  readonly url: string;
  /** The path signed at the handshake: the URL's path without its query. */
  readonly signedPath: string;
  readonly #options: WsSessionOptions;
  readonly #handler: WsSessionHandler;
  readonly #backoff: Backoff;
  #socket: RawWebSocket | null = null;
  #state: ConnectionState = ConnectionState.IDLE;
  #stopped = true;
  #reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  #connectStartedMs = 0;
  #openedAtMs = 0;
  // Liveness: frames counted on the hot path, compared on the tick (no clock read per frame).
  #inboundCount = 0;
  #inboundCountSeen = 0;
  #lastInboundMs = 0;
  #lastPingMs = 0;
  /** Connections opened since start (1 = the first). */
  opens = 0;
  /** Binary messages received (the exchange sends text; decoded anyway). */
  binaryFrames = 0;
  // Bound once: the client's callbacks (no closure per message).
  readonly #onText = (bytes: Buffer, start: number, end: number): boolean => {
    this.#inboundCount++;
    return this.#handler.onFrame(bytes, start, end);
  };
  readonly #onBinary = (bytes: Buffer, start: number, end: number): void => {
    this.#inboundCount++;
    this.binaryFrames++;
    this.#handler.onFrame(bytes, start, end);
  };
  readonly #onControl = (): void => {
    this.#inboundCount++;
  };

  constructor(options: WsSessionOptions) {
    this.url = options.url;
    this.signedPath = new URL(options.url).pathname;
    this.#options = options;
    this.#handler = options.handler;
    this.#backoff = new Backoff({ minMs: options.reconnectMinMs, maxMs: options.reconnectMaxMs, random: options.random });
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get isOpen(): boolean {
    return this.#state === ConnectionState.OPEN;
  }

  /** Opens the connection (and keeps reopening it until stop). */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#connect();
  }

  /** Closes for good: no reconnect. */
  stop(): void {
    this.#stopped = true;
    if (this.#reconnectTimer !== null) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    const socket = this.#socket;
    const wasOpen = this.#state === ConnectionState.OPEN;
    this.#abandon(socket, 1000, 'client stop');
    if (wasOpen) this.#handler.onClose(1000, 'client stop');
    this.#setState(ConnectionState.CLOSED);
  }

  /** Writes one text frame; false when not open. */
  send(text: string): boolean {
    const socket = this.#socket;
    if (socket === null || this.#state !== ConnectionState.OPEN) return false;
    socket.send(text);
    return true;
  }

  /** Drops the current connection and reconnects after the backoff delay (e.g. the owner saw a protocol failure). */
  reconnect(reason: string): void {
    if (this.#stopped) return;
    this.#logger.warn({ reason }, 'feed: dropping connection');
    this.#lost(1006, reason);
  }

  /** Coarse tick from the owner: connect timeout, idle ping, dead connection. */
  onTick(nowMs: number): void {
    if (this.#state === ConnectionState.CONNECTING) {
      if (nowMs - this.#connectStartedMs >= this.#options.connectTimeoutMs) this.#lost(1006, 'connect timeout');
      return;
    }
    if (this.#state !== ConnectionState.OPEN) return;
    if (this.#inboundCount !== this.#inboundCountSeen) {
      this.#inboundCountSeen = this.#inboundCount;
      this.#lastInboundMs = nowMs;
      return;
    }
    const silentMs = nowMs - this.#lastInboundMs;
    if (silentMs >= this.#options.deadAfterMs) {
      this.#lost(1006, 'no frames, pings or pongs: connection dead');
      return;
    }
    if (silentMs >= this.#options.idlePingMs && nowMs - this.#lastPingMs >= this.#options.idlePingMs && this.#socket !== null) {
      this.#lastPingMs = nowMs;
      this.#socket.ping();
    }
  }

  get #logger(): FeedLogger {
    return this.#options.logger;
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#handler.onState(state);
  }

  #connect(): void {
    this.#reconnectTimer = null;
    if (this.#stopped) return;
    const nowMs = this.#options.nowMs();
    this.#connectStartedMs = nowMs;
    this.#setState(ConnectionState.CONNECTING);
    let socket: RawWebSocket;
    try {
      const headers = this.#options.sign === null ? undefined : this.#options.sign(nowMs, this.signedPath);
      socket = new RawWebSocket(this.url, { headers, utf8: 'listener', turnBudgetNs: (this.#options.turnBudgetUs ?? 0) * 1000, now: nowNs });
    } catch (error) {
      this.#logger.error({ err: error, url: this.url }, 'feed: cannot start connection');
      this.#scheduleReconnect();
      return;
    }
    this.#socket = socket;
    socket.oncontrol = this.#onControl;
    socket.ontext = this.#onText;
    socket.onbinary = this.#onBinary;
    socket.onopen = () => this.#onOpen(socket);
    socket.onerror = (event) => {
      this.#logger.warn({ err: event.error, url: this.url }, 'feed: websocket error');
    };
    socket.onclose = (event) => {
      if (socket !== this.#socket) return;
      this.#lost(event.code, event.reason);
    };
  }

  #onOpen(socket: RawWebSocket): void {
    if (socket !== this.#socket) return;
    const nowMs = this.#options.nowMs();
    this.#openedAtMs = nowMs;
    this.#lastInboundMs = nowMs;
    this.#lastPingMs = nowMs;
    this.#inboundCountSeen = this.#inboundCount;
    this.opens++;
    this.#setState(ConnectionState.OPEN);
    this.#logger.info({ url: this.url, opens: this.opens }, 'feed: connected');
    this.#handler.onOpen();
  }

  /** The current socket is gone or given up on: tell the owner once, then reconnect. */
  #lost(code: number, reason: string): void {
    const socket = this.#socket;
    if (socket === null) return;
    const wasOpen = this.#state === ConnectionState.OPEN;
    this.#abandon(socket, 4000, reason);
    if (wasOpen && this.#options.nowMs() - this.#openedAtMs >= this.#options.stableAfterMs) this.#backoff.reset();
    this.#logger.warn({ code, reason, wasOpen }, 'feed: connection lost');
    if (wasOpen) this.#handler.onClose(code, reason);
    if (this.#stopped) {
      this.#setState(ConnectionState.CLOSED);
      return;
    }
    this.#scheduleReconnect();
  }

  /** Detaches and closes a socket; its late events are ignored. */
  #abandon(socket: RawWebSocket | null, code: number, reason: string): void {
    if (socket === null) return;
    this.#socket = null;
    socket.onopen = null;
    socket.ontext = null;
    socket.onbinary = null;
    socket.onclose = null;
    socket.onerror = () => {};
    socket.oncontrol = null;
    // A dead path never completes the closing handshake; the client drops the socket after 1 s
    // when the peer does not answer, and nothing of ours waits for it.
    socket.close(code === 1000 ? 1000 : 4000, reason.slice(0, 120));
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#reconnectTimer !== null) return;
    this.#setState(ConnectionState.RECONNECTING);
    const delayMs = this.#backoff.nextDelayMs();
    this.#logger.info({ delayMs, attempt: this.#backoff.attempt }, 'feed: reconnecting');
    this.#reconnectTimer = setTimeout(() => this.#connect(), delayMs);
  }
}
