/**
 * Wires a FixSession to a node:net / node:tls socket: data in, bytes out (copied, because the
 * session's encoder reuses its buffer while the socket may queue), close both ways, and one unref'd
 * interval driving session.tick(). TLS is the caller's choice of socket (fix.md §1 requires TLS 1.2+
 * against the venue; the simulator and tests may use plain TCP).
 */

import type { Socket } from 'node:net';
import type { FixSession, FixTransport } from './session.ts';

export interface SocketLinkOptions {
  /** How often session.tick() runs (default 1000 ms). */
  tickIntervalMs?: number;
  /** After end(), how long to wait for the peer's FIN before destroying the socket (default 2000 ms). */
  closeGraceMs?: number;
}

/** Connects `session` to an open `socket` and starts it (an initiator sends its Logon now). */
export function linkSocket(session: FixSession, socket: Socket, options: SocketLinkOptions = {}): void {
  const closeGraceMs = options.closeGraceMs ?? 2000;
  socket.setNoDelay(true);
  const transport: FixTransport = {
    write(bytes: Uint8Array): void {
      if (!socket.destroyed) socket.write(Buffer.from(bytes));
    },
    end(): void {
      socket.end();
      setTimeout(() => socket.destroy(), closeGraceMs).unref();
    },
  };
  const timer = setInterval(() => session.tick(), options.tickIntervalMs ?? 1000);
  timer.unref();
  socket.on('data', (chunk: Buffer) => session.receive(chunk));
  socket.on('error', () => { /* 'close' follows; the session reports it */ });
  socket.on('close', () => {
    clearInterval(timer);
    session.disconnected();
  });
  session.connect(transport);
}
