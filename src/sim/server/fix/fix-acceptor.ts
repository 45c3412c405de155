/**
 * The simulator's FIX acceptor: one TCP listener per session kind it serves (KalshiNR, KalshiRT,
 * KalshiDC), each on its own free port (fix.md §11: "on their own ports", offset to free local
 * ports), plain TCP by default or TLS 1.2+ when given a certificate (fix.md §1 requires TLS against
 * the venue; tests and local runs use plain TCP). Every connection gets its own acceptor FixSession
 * (src/fix) that checks the signed Logon against the simulator's API keys, with one live session
 * per key across all listeners (a second Logon gets Logout "already exists"), and an application
 * object that maps messages onto the engine (order-entry-connection.ts, drop-copy-connection.ts).
 *
 * Sequence stores: NR and DC reset at every Logon (141=Y is mandatory) and live in memory. RT keeps
 * one store per key for the life of the simulator (memory, or files under `storeDir`, mode 0600),
 * so a reconnect without 141=Y can ask for what it missed; reports raised while the key is offline
 * after an RT session are appended to that store and come back by resend. Bounds: connections,
 * bytes per message, messages per second and garbled frames per connection (connection-base.ts).
 * One unref'd interval ticks every session (heartbeats, TestRequest, logon timeout).
 */

import { mkdirSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/index.ts';
import {
  ActiveSessionRegistry, FileSequenceStore, FixEncoder, FixSession, MemorySequenceStore, MsgType, type FixTransport, type SequenceStore,
} from '../../../fix/index.ts';
import type { SimServices } from '../services.ts';
import type { AcceptorContext } from './connection-base.ts';
import { DropCopyConnection } from './drop-copy-connection.ts';
import { writeExecutionReport, type ExecutionReportRecord, type ReportFlags } from './execution-report.ts';
import { OrderEntryConnection } from './order-entry-connection.ts';
import { ReportHub } from './report-hub.ts';

export type FixSessionKindServed = 'KalshiNR' | 'KalshiRT' | 'KalshiDC';
export const FIX_SESSIONS_SERVED: readonly FixSessionKindServed[] = ['KalshiNR', 'KalshiRT', 'KalshiDC'];

export interface FixAcceptorOptions {
  services: SimServices;
  clock: Clock;
  host: string;
  /** PEM certificate and key: listen with TLS (minimum TLS 1.2). Absent: plain TCP. */
  tls?: { cert: string | Buffer; key: string | Buffer } | null;
  /** KalshiRT stores on file here (mode 0600); absent: in memory. */
  storeDir?: string | null;
  /** |SendingTime - now| accepted, ms (fix.md §1: 30 s). */
  sendingTimeToleranceMs?: number;
  /** Largest message, bytes (default 16 KiB; a NewOrderSingle is about 250). */
  messageBytesMax?: number;
  /** Live connections across all listeners (default 256). */
  connectionsMax?: number;
  /** Application messages per connection per second before it is logged out (default 2,000). */
  messagesPerSecondMax?: number;
  /** Garbled frames per connection before it is closed (default 100). */
  framingErrorsMax?: number;
  /** Outgoing messages an RT store keeps for resend (default 100,000). */
  rtMessagesMax?: number;
  logger?: Logger;
}

export const FIX_ACCEPTOR_DEFAULTS = Object.freeze({
  sendingTimeToleranceMs: 30_000,
  messageBytesMax: 16 * 1024,
  connectionsMax: 256,
  messagesPerSecondMax: 2_000,
  framingErrorsMax: 100,
  rtMessagesMax: 100_000,
  tickIntervalMs: 1_000,
  closeGraceMs: 2_000,
});

interface Live {
  socket: Socket;
  session: FixSession;
}

export class FixAcceptor {
  readonly hub: ReportHub;
  readonly ports: Record<FixSessionKindServed, number> = { KalshiNR: 0, KalshiRT: 0, KalshiDC: 0 };
  readonly #options: FixAcceptorOptions;
  readonly #context: AcceptorContext;
  readonly #registry = new ActiveSessionRegistry();
  readonly #rtStores = new Map<string, SequenceStore>();
  readonly #rtFlags = new Map<string, ReportFlags>(); // keys whose last order-entry session was RT
  readonly #servers: Server[] = [];
  readonly #live = new Set<Live>();
  readonly #encoder = new FixEncoder();
  #detach: (() => void) | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: FixAcceptorOptions) {
    this.#options = options;
    const services = options.services;
    const now = (): number => options.clock.nowMs();
    this.hub = new ReportHub({ engine: services.engine, now, offline: (keyId, record) => this.#storeOffline(keyId, record) });
    this.#context = {
      engine: services.engine,
      keys: services.keys,
      rateLimiter: services.rateLimiter,
      faults: services.faults,
      logger: options.logger ?? services.logger,
      hub: this.hub,
      now,
      ensureFunded: (userId, subaccount) => services.ensureFunded(userId, subaccount),
      ensureUser: (userId) => services.ensureUser(userId),
      messagesPerSecondMax: options.messagesPerSecondMax ?? FIX_ACCEPTOR_DEFAULTS.messagesPerSecondMax,
      framingErrorsMax: options.framingErrorsMax ?? FIX_ACCEPTOR_DEFAULTS.framingErrorsMax,
      massCancelIntervalMs: 1_000,
    };
    if (options.storeDir) mkdirSync(options.storeDir, { recursive: true, mode: 0o700 });
  }

  /** Starts every listener on `host`, port 0 each; resolves with the bound ports. */
  async listen(): Promise<Record<FixSessionKindServed, number>> {
    this.#detach = this.hub.attach();
    for (const name of FIX_SESSIONS_SERVED) {
      const onSocket = (socket: Socket): void => this.#accept(socket, name);
      const tls = this.#options.tls;
      const server = tls ? createTlsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, onSocket) : createTcpServer(onSocket);
      server.on('error', (error) => this.#context.logger.error({ err: error, session: name }, 'fix: listener error'));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, this.#options.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      this.ports[name] = (server.address() as AddressInfo).port;
      this.#servers.push(server);
    }
    this.#timer = setInterval(() => {
      for (const live of this.#live) live.session.tick();
    }, FIX_ACCEPTOR_DEFAULTS.tickIntervalMs);
    this.#timer.unref();
    return this.ports;
  }

  /** Stops listening, drops every connection and closes the stores. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#detach?.();
    for (const live of this.#live) live.socket.destroy();
    this.#live.clear();
    await Promise.all(this.#servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    for (const store of this.#rtStores.values()) store.close();
    this.#rtStores.clear();
  }

  #accept(socket: Socket, name: FixSessionKindServed): void {
    const options = this.#options;
    if (this.#closed || this.#live.size >= (options.connectionsMax ?? FIX_ACCEPTOR_DEFAULTS.connectionsMax)) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    const connection = name === 'KalshiDC' ? new DropCopyConnection(this.#context, name) : new OrderEntryConnection(this.#context, name);
    connection.afterLogon = () => this.#noteLogon(connection.keyId, name, connection.flags);
    if (connection instanceof OrderEntryConnection) connection.dropConnection = () => socket.destroy();
    const session = new FixSession({
      role: 'acceptor',
      sessionNames: [name],
      clock: options.clock,
      sendingTimeToleranceMs: options.sendingTimeToleranceMs ?? FIX_ACCEPTOR_DEFAULTS.sendingTimeToleranceMs,
      messageBytesMax: options.messageBytesMax ?? FIX_ACCEPTOR_DEFAULTS.messageBytesMax,
      handshakeTimeoutMs: 10_000,
      registry: this.#registry,
      publicKeyOf: (keyId) => this.#context.keys.get(keyId)?.publicKey ?? null,
      storeFor: (keyId, sessionName) => (sessionName === 'KalshiRT' ? this.#rtStore(keyId) : new MemorySequenceStore()),
      authorize: (logon, keyId, kind) => connection.authorize(logon, keyId, kind),
    }, connection);
    const live: Live = { socket, session };
    this.#live.add(live);
    const transport: FixTransport = {
      write(bytes: Uint8Array): void {
        if (!socket.destroyed) socket.write(Buffer.from(bytes));
      },
      end(): void {
        socket.end();
        setTimeout(() => socket.destroy(), FIX_ACCEPTOR_DEFAULTS.closeGraceMs).unref();
      },
    };
    socket.on('data', (chunk: Buffer) => {
      // Everything one chunk causes leaves in one write (a request's reports arrive together).
      socket.cork();
      try {
        session.receive(chunk);
      } catch (error) {
        this.#context.logger.error({ err: error, session: name }, 'fix: session failed on input; closing the connection');
        socket.destroy();
      } finally {
        socket.uncork();
      }
    });
    socket.on('error', () => { /* 'close' follows */ });
    socket.on('close', () => {
      this.#live.delete(live);
      session.disconnected();
    });
    session.connect(transport);
  }

  #rtStore(keyId: string): SequenceStore {
    let store = this.#rtStores.get(keyId);
    if (store === undefined) {
      const messagesMax = this.#options.rtMessagesMax ?? FIX_ACCEPTOR_DEFAULTS.rtMessagesMax;
      store = this.#options.storeDir
        ? new FileSequenceStore(join(this.#options.storeDir, `${keyId.replace(/[^A-Za-z0-9-]/g, '_')}-KalshiRT`), { messagesMax })
        : new MemorySequenceStore({ messagesMax });
      this.#rtStores.set(keyId, store);
    }
    return store;
  }

  #noteLogon(keyId: string, name: FixSessionKindServed, flags: ReportFlags): void {
    if (name === 'KalshiRT') this.#rtFlags.set(keyId, { ...flags });
    else if (name === 'KalshiNR') this.#rtFlags.delete(keyId);
  }

  /** A report for a key with no live session: kept in its RT store when its last session was RT. */
  #storeOffline(keyId: string, record: ExecutionReportRecord): boolean {
    const flags = this.#rtFlags.get(keyId);
    if (flags === undefined || this.#registry.has(keyId)) return false;
    const store = this.#rtStore(keyId);
    const seq = store.nextOutgoing();
    const encoder = this.#encoder.begin(MsgType.ExecutionReport, 'KalshiRT', keyId, seq, this.#options.clock.nowMs());
    writeExecutionReport(encoder, record, flags);
    const bytes = encoder.finish();
    store.setNextOutgoing(seq + 1);
    store.saveOutgoing(seq, bytes);
    return true;
  }
}
