/**
 * Wires a FixSession to a node:net / node:tls socket: data in, bytes out (copied, because the
 * session's encoder reuses its buffer while the socket may queue: into a reused buffer when the
 * socket is idle), close both ways. linkSocket
 * takes an open socket and drives session.tick() itself (tests, simple tools); dialSession opens
 * the connection (TLS 1.2+ as fix.md §1 requires of the venue, or plain TCP to the simulator),
 * bounds the connect, and leaves ticking and reconnecting to its owner (the runtime's FIX routes).
 */

import { channel } from 'node:diagnostics_channel';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { FixSession, FixTransport } from './session.ts';

export interface SocketLinkOptions {
  /** How often session.tick() runs (default 1000 ms). */
  tickIntervalMs?: number;
  /** After end(), how long to wait for the peer's FIN before destroying the socket (default 2000 ms). */
  closeGraceMs?: number;
}

/** A transport's reused output buffer: a NewOrderSingle is about 250 bytes, a resend batch more. */
const OUT_BUFFER_BYTES = 16 * 1024;
/** A plain-TCP socket's reused read buffer (onread): one read takes at most this much. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * Diagnostics channels, the socket as the message, as the REST route's (RAW_HTTP_WRITE_START_CHANNEL):
 * WRITE_START just before a message's one socket.write, WRITE after it returned. Benches time the
 * FIX route's exec hop with them; each costs one `hasSubscribers` read when no one listens.
 */
export const FIX_WRITE_START_CHANNEL = 'exec:fix:write-start';
export const FIX_WRITE_CHANNEL = 'exec:fix:write';
const writeStartChannel = channel(FIX_WRITE_START_CHANNEL);
const writeChannel = channel(FIX_WRITE_CHANNEL);

/**
 * The session's transport over `socket`; end() then destroys after `closeGraceMs`. The session's
 * encoder reuses its buffer, so each message is copied: into this transport's own reused buffer
 * while the socket holds none of an earlier write (no allocation per message), else into a buffer
 * of its own. A write the kernel does not take at once keeps a reference to what it was given
 * until it drains, and the reused buffer is not touched again until then.
 */
export function socketTransport(socket: Socket, closeGraceMs: number): FixTransport {
  const out = Buffer.allocUnsafe(OUT_BUFFER_BYTES);
  return {
    write(bytes: Uint8Array): void {
      if (socket.destroyed) return;
      if (socket.writableLength === 0 && bytes.length <= out.length) {
        out.set(bytes);
        if (writeStartChannel.hasSubscribers) writeStartChannel.publish(socket);
        socket.write(out.subarray(0, bytes.length));
      } else {
        const copy = Buffer.from(bytes);
        if (writeStartChannel.hasSubscribers) writeStartChannel.publish(socket);
        socket.write(copy);
      }
      if (writeChannel.hasSubscribers) writeChannel.publish(socket);
    },
    rehearse(bytes: Uint8Array): void {
      if (!socket.destroyed && socket.writableLength === 0 && bytes.length <= out.length) out.set(bytes);
    },
    end(): void {
      socket.end();
      setTimeout(() => socket.destroy(), closeGraceMs).unref();
    },
  };
}

/** Connects `session` to an open `socket` and starts it (an initiator sends its Logon now). */
export function linkSocket(session: FixSession, socket: Socket, options: SocketLinkOptions = {}): void {
  socket.setNoDelay(true);
  const timer = setInterval(() => session.tick(), options.tickIntervalMs ?? 1000);
  timer.unref();
  socket.on('data', (chunk: Buffer) => session.receive(chunk));
  socket.on('error', () => { /* 'close' follows; the session reports it */ });
  socket.on('close', () => {
    clearInterval(timer);
    session.disconnected();
  });
  session.connect(socketTransport(socket, options.closeGraceMs ?? 2000));
}

export interface DialOptions {
  host: string;
  port: number;
  /** TLS options (TLS 1.2 at least), or null for plain TCP. */
  tls: { ca?: string | Buffer; servername?: string; rejectUnauthorized?: boolean } | null;
  /** The socket is destroyed when not connected within this, ms. */
  connectTimeoutMs: number;
  /** After end(), how long to wait for the peer's FIN, ms (default 1000). */
  closeGraceMs?: number;
}

export interface DialHooks {
  /** Hands a chunk to the session (default session.receive): owners wrap it with their own bookkeeping. */
  receive?(chunk: Buffer): void;
  /**
   * The socket closed. `linked` false: it never connected, so the session never heard of it (the
   * owner retries); true: session.disconnected() is called right after this hook.
   */
  closed(socket: Socket, linked: boolean): void;
}

/** Opens a connection for `session` and connects the session once it is up (an initiator logs on then). */
export function dialSession(session: FixSession, options: DialOptions, hooks: DialHooks): Socket {
  const receive = hooks.receive ?? ((chunk: Buffer): void => session.receive(chunk));
  let socket: Socket;
  if (options.tls === null) {
    // Plain TCP reads into one reused buffer (net's onread): no Buffer, stream bookkeeping and
    // nextTick per read. The session's framer copies what it keeps before the call returns.
    const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    socket = netConnect({ host: options.host, port: options.port, onread: { buffer: readBuffer, callback: (bytes: number) => {
      receive(readBuffer.subarray(0, bytes));
      return true;
    } } });
  } else {
    socket = tlsConnect({ host: options.host, port: options.port, minVersion: 'TLSv1.2', ...options.tls });
  }
  // With onread the stream never emits 'data' itself (onStreamRead hands the bytes to the callback
  // and pushes nothing), so this listener only sees TLS reads and chunks a harness emits on the
  // socket (bench/fix's sink delivers its answers so).
  socket.on('data', receive);
  socket.setNoDelay(true);
  const connectTimer = setTimeout(() => socket.destroy(), options.connectTimeoutMs);
  connectTimer.unref();
  let linked = false;
  socket.once(options.tls === null ? 'connect' : 'secureConnect', () => {
    clearTimeout(connectTimer);
    linked = true;
    session.connect(socketTransport(socket, options.closeGraceMs ?? 1_000));
  });
  socket.on('error', () => { /* 'close' follows */ });
  socket.on('close', () => {
    clearTimeout(connectTimer);
    hooks.closed(socket, linked);
    if (linked) session.disconnected();
  });
  return socket;
}
