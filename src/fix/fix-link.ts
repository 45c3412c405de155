/**
 * One initiator FIX session kept connected: dial (dialSession: TLS to the venue, plain TCP to the
 * simulator), log on, tick the session (heartbeats, TestRequest, handshake timeouts) from one
 * unref'd interval, and after the first logon reconnect with doubling backoff whenever the
 * connection drops, until close(). The runtime's FIX users (the order route, the market-data feed,
 * the RFQ quote route) each own one and keep only their application logic.
 *
 * The owner's FixApplication gets every application message and every session event; the link
 * also acts on 'logon' (connect() resolves, backoff resets), 'logon-refused' (connect() rejects)
 * and 'closed' (schedules the reconnect). Knows no trading code.
 */

import type { Socket } from 'node:net';
import type { Clock } from '../core/index.ts';
import { FixSession, type FixApplication, type FixInitiatorOptions, type FixSessionEvent } from './session.ts';
import { dialSession, type DialOptions } from './socket-link.ts';

export interface FixLinkOptions extends Omit<DialOptions, 'connectTimeoutMs'> {
  /** The session's options (role initiator); its handshakeTimeoutMs bounds the Logon answer. */
  session: FixInitiatorOptions;
  clock: Clock;
  connectTimeoutMs: number; // TCP/TLS connect
  reconnectMinMs: number; // first retry after a lost connection, doubling ...
  reconnectMaxMs: number; // ... up to this
  tickMs: number; // session.tick() and the owner's onTick
}

export interface FixLinkHooks extends FixApplication {
  /** Wraps the delivery of one read chunk (default: session.receive), e.g. to fold answers per chunk. */
  receive?(chunk: Buffer, session: FixSession): void;
  /** After each session tick. */
  onTick?(nowMs: number): void;
}

export class FixLinkError extends Error {
  readonly code: 'FIX_LOGON_REFUSED' | 'FIX_DISCONNECTED';
  constructor(code: 'FIX_LOGON_REFUSED' | 'FIX_DISCONNECTED', message: string) {
    super(message);
    this.name = 'FixLinkError';
    this.code = code;
  }
}

export class FixLink {
  readonly session: FixSession;
  readonly stats = { connects: 0, disconnects: 0 };
  readonly #options: FixLinkOptions;
  readonly #hooks: FixLinkHooks;
  #socket: Socket | null = null;
  #tickTimer: NodeJS.Timeout | null = null;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #reconnectDelayMs: number;
  #started = false; // true after the first logon (or start()): reconnect on loss
  #closed = false;
  #logonWaiter: { resolve: () => void; reject: (error: FixLinkError) => void } | null = null;

  constructor(options: FixLinkOptions, hooks: FixLinkHooks) {
    this.#options = options;
    this.#hooks = hooks;
    this.#reconnectDelayMs = options.reconnectMinMs;
    this.session = new FixSession(options.session, {
      onMessage: (message, session) => hooks.onMessage(message, session),
      onEvent: (event, session) => this.#onEvent(event, session),
    });
  }

  get state(): string {
    return this.session.state;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Connects and logs on; resolves once active, rejects with FixLinkError (refused, or closed first). */
  connect(): Promise<void> {
    if (this.#closed) return Promise.reject(new FixLinkError('FIX_DISCONNECTED', 'FixLink: connect after close'));
    if (this.session.state === 'active') return Promise.resolve();
    if (this.#tickTimer === null) {
      this.#tickTimer = setInterval(() => this.#tick(), this.#options.tickMs);
      this.#tickTimer.unref();
    }
    return new Promise<void>((resolve, reject) => {
      this.#logonWaiter = { resolve, reject };
      if (this.#socket === null) this.#open();
    });
  }

  /**
   * Connects and keeps connecting with backoff from the first attempt on, logged on or not, until
   * close() (a feed that must come back by itself); connect() retries only after a first logon.
   */
  start(): void {
    if (this.#closed || this.#started) return;
    this.#started = true;
    if (this.#tickTimer === null) {
      this.#tickTimer = setInterval(() => this.#tick(), this.#options.tickMs);
      this.#tickTimer.unref();
    }
    if (this.#socket === null) this.#open();
  }

  /** Logs out (bounded wait), stops reconnecting and ticking, destroys the socket. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#reconnectTimer !== null) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    if (this.#tickTimer !== null) clearInterval(this.#tickTimer);
    this.#tickTimer = null;
    const socket = this.#socket;
    if (this.session.state === 'active' && socket !== null) {
      this.session.logout();
      for (let i = 0; i < 50 && (this.session.state as string) !== 'closed'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    socket?.destroy();
    if (this.session.state !== 'closed' && this.session.state !== 'idle') this.session.disconnected();
  }

  /** Drops the connection now (a reconnect follows after the first logon); for faults and tests. */
  drop(): void {
    this.#socket?.destroy();
  }

  #tick(): void {
    this.session.tick();
    this.#hooks.onTick?.(this.#options.clock.nowMs());
  }

  #open(): void {
    const session = this.session;
    const receive = this.#hooks.receive;
    this.#socket = dialSession(session, { ...this.#options, connectTimeoutMs: this.#options.connectTimeoutMs }, {
      receive: receive === undefined ? undefined : (chunk) => receive(chunk, session),
      closed: (socket, linked) => {
        if (this.#socket === socket) this.#socket = null;
        if (!linked) this.#onClosed(); // never reached the session: retry (or fail connect())
      },
    });
  }

  #onEvent(event: FixSessionEvent, session: FixSession): void {
    switch (event.type) {
      case 'logon':
        this.stats.connects++;
        this.#started = true;
        this.#reconnectDelayMs = this.#options.reconnectMinMs;
        this.#logonWaiter?.resolve();
        this.#logonWaiter = null;
        break;
      case 'logon-refused':
        this.#logonWaiter?.reject(new FixLinkError('FIX_LOGON_REFUSED', `FIX logon refused: ${event.text}`));
        this.#logonWaiter = null;
        break;
      case 'closed':
        this.#onClosed();
        break;
      default:
        break;
    }
    this.#hooks.onEvent?.(event, session);
  }

  #onClosed(): void {
    this.stats.disconnects++;
    this.#socket?.destroy();
    this.#socket = null;
    if (this.#logonWaiter !== null) {
      this.#logonWaiter.reject(new FixLinkError('FIX_DISCONNECTED', 'FIX connection closed before logon'));
      this.#logonWaiter = null;
    }
    if (this.#closed || !this.#started) return;
    const delay = this.#reconnectDelayMs;
    this.#reconnectDelayMs = Math.min(delay * 2, this.#options.reconnectMaxMs);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      if (!this.#closed) this.#open();
    }, delay);
    this.#reconnectTimer.unref();
  }
}
