/**
 * One WebSocket session to the exchange, over our RFC 6455 client (raw-websocket.ts, the default:
 * measured faster per frame) or undici's (`transport: 'undici'`): a signed handshake (KALSHI-ACCESS-*
 * headers over `<ms>GET<path>`, the URL's path without its query, spec/websocket.md §1.2),
 * text frames handed to the handler as strings, reconnects with exponential backoff and full
 * jitter, and dead-connection detection. It owns the socket and its life cycle only; it never
 * decodes frames, never knows about subscriptions and never retries a command.
 *
 * Keep-alive: both clients answer the server's pings themselves (undici's receiver.js writes the
 * pong before it tells anyone; test/feed/ws-session.test.ts checks it for both against a uWS
 * server that counts pongs). We observe pings and pongs (undici: its diagnostics channels; ours:
 * its oncontrol callback), count every inbound frame,
 * and on the coarse tick send our own ping after `idlePingMs` of silence and drop the connection
 * after `deadAfterMs` of silence (the server pings every 10 s, so silence means a dead path).
 * The tick comes from the owner (the Feed's one shared tick): no timer per session for liveness.
 */

import diagnosticsChannel from 'node:diagnostics_channel';
import { WebSocket, ping as sendPing } from 'undici';
import { Backoff } from './backoff.ts';
import { RawWebSocket } from './raw-websocket.ts';
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
  /** One text frame (hot path). Must not throw. */
  onFrame(text: string): void;
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
  /** WebSocket client: 'raw' (raw-websocket.ts, default) or 'undici'. */
  transport?: FeedTransport;
}

export type FeedTransport = 'raw' | 'undici';

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

// One diagnostics subscription for all sessions: undici publishes pings/pongs only when someone listens.
const sessionsBySocket = new WeakMap<object, WsSession>();
let diagnosticsSubscribed = false;

function onControlFrame(message: unknown): void {
  const socket = (message as { websocket?: object }).websocket;
  if (socket === undefined) return;
  const session = sessionsBySocket.get(socket);
  if (session !== undefined) session.noteInbound();
}

function subscribeDiagnostics(): void {
  if (diagnosticsSubscribed) return;
  diagnosticsSubscribed = true;
  diagnosticsChannel.subscribe('undici:websocket:ping', onControlFrame);
  diagnosticsChannel.subscribe('undici:websocket:pong', onControlFrame);
}

const textDecoder = new TextDecoder();

export class WsSession implements FeedSession {
  readonly url: string;
  /** The path signed at the handshake: the URL's path without its query. */
  readonly signedPath: string;
  readonly #options: WsSessionOptions;
  readonly #handler: WsSessionHandler;
  readonly #backoff: Backoff;
  #socket: WebSocket | RawWebSocket | null = null;
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
  /** Binary frames received (the exchange sends text; decoded anyway). */
  binaryFrames = 0;

  constructor(options: WsSessionOptions) {
    this.url = options.url;
    this.signedPath = new URL(options.url).pathname;
    this.#options = options;
    this.#handler = options.handler;
    this.#backoff = new Backoff({ minMs: options.reconnectMinMs, maxMs: options.reconnectMaxMs, random: options.random });
    subscribeDiagnostics();
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

  /** Counts an inbound ping or pong (diagnostics channel). */
  noteInbound(): void {
    this.#inboundCount++;
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
      try {
        const socket = this.#socket;
        if (socket instanceof RawWebSocket) socket.ping();
        else sendPing(socket);
      } catch (error) {
        this.#logger.debug({ err: error }, 'feed: ping failed');
      }
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
    let socket: WebSocket | RawWebSocket;
    try {
      const headers = this.#options.sign === null ? undefined : this.#options.sign(nowMs, this.signedPath);
      if (this.#options.transport === 'undici') {
        socket = new WebSocket(this.url, headers === undefined ? undefined : { headers });
      } else {
        const raw = new RawWebSocket(this.url, { headers });
        raw.oncontrol = () => this.noteInbound();
        socket = raw;
      }
    } catch (error) {
      this.#logger.error({ err: error, url: this.url }, 'feed: cannot start connection');
      this.#scheduleReconnect();
      return;
    }
    socket.binaryType = 'arraybuffer';
    this.#socket = socket;
    sessionsBySocket.set(socket, this);
    socket.onopen = () => this.#onOpen(socket);
    socket.onmessage = (event: { data: unknown }) => {
      this.#inboundCount++;
      const data = event.data;
      if (typeof data === 'string') this.#handler.onFrame(data);
      else this.#onBinary(data);
    };
    socket.onerror = (event: unknown) => {
      const error = (event as { error?: unknown }).error;
      this.#logger.warn({ err: error, url: this.url }, 'feed: websocket error');
    };
    socket.onclose = (event: { code: number; reason: string }) => {
      if (socket !== this.#socket) return;
      this.#lost(event.code, event.reason);
    };
  }

  #onOpen(socket: WebSocket | RawWebSocket): void {
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

  #onBinary(data: unknown): void {
    this.binaryFrames++;
    if (data instanceof ArrayBuffer) this.#handler.onFrame(textDecoder.decode(data));
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
  #abandon(socket: WebSocket | RawWebSocket | null, code: number, reason: string): void {
    if (socket === null) return;
    this.#socket = null;
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = () => {};
    if (socket instanceof RawWebSocket) socket.oncontrol = null;
    try {
      // A dead path never completes the closing handshake; undici drops the socket when the peer
      // does not answer, and nothing of ours waits for it.
      socket.close(code === 1000 ? 1000 : 4000, reason.slice(0, 120));
    } catch {
      // close() throws only on bad arguments; the socket is detached either way.
    }
  }

  #scheduleReconnect(): void {
    if (this.#stopped || this.#reconnectTimer !== null) return;
    this.#setState(ConnectionState.RECONNECTING);
    const delayMs = this.#backoff.nextDelayMs();
    this.#logger.info({ delayMs, attempt: this.#backoff.attempt }, 'feed: reconnecting');
    this.#reconnectTimer = setTimeout(() => this.#connect(), delayMs);
  }
}
