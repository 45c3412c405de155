/**
 * The simulator's FIX acceptor: one TCP listener per session kind it serves (KalshiNR, KalshiRT,
 * KalshiDC, KalshiPT, KalshiRFQ, KalshiMD), each on its own free port (fix.md §11: "on their own ports", offset to free local
 * ports), plain TCP by default or TLS 1.2+ when given a certificate (fix.md §1 requires TLS against
 * the venue; tests and local runs use plain TCP). Every connection gets its own acceptor FixSession
 * (src/fix) that checks the signed Logon against the simulator's API keys, with one live session
 * per key across all listeners (a second Logon gets Logout "already exists"), and an application
 * object that maps messages onto the engine (order-entry-connection.ts, drop-copy-connection.ts,
 * post-trade-connection.ts, rfq-connection.ts with rfq-hub.ts, market-data-connection.ts; the RFQ
 * requester's messages are rfq-requester.ts, served on KalshiRT and on KalshiRFQ). KalshiMD has a registry of its own: it lives
 * on the venue's market-data host (fix.md §1), a separate gateway, so one key may hold an
 * order-entry session and a market-data session at once (our reading; §1 says one connection per
 * key without naming hosts).
 *
 * Sequence stores: NR and DC reset at every Logon (141=Y is mandatory) and live in memory. RT keeps
 * one store per key for the life of the simulator (memory, or files under `storeDir`, mode 0600),
 * so a reconnect without 141=Y can ask for what it missed; reports raised while the key is offline
 * after an RT session are appended to that store and come back by resend. KalshiPT keeps one store
 * per key the same way (settlement reports for a key whose PT session is gone are appended to it).
 * RFQ and MD reset at every Logon. The FIX faults (src/sim/faults): fix_drop_outbound is applied here, on
 * the write of an outbound application message (not on resends); fix_disconnect in
 * connection-base.ts; fix_exchange_unavailable in order-entry-connection.ts. Bounds: connections
 * (in all, per listener and per source address, evicting the oldest connection not logged on to
 * admit a new one: connection-limits.ts), the time allowed before Logon (2 s), bytes per message,
 * messages per second and garbled frames per connection (connection-base.ts), and one output budget
 * per connection: above `outputBytesMax` unsent bytes it produces no market data (a MarketDataRequest
 * gets 35=Y 281=2, a subscriber that stopped reading its increments is logged out) and a resend
 * pauses until the socket drains; above `outputBytesDisconnect` (a peer that does not read even its
 * execution reports, which are never dropped) the connection is closed.
 * One unref'd interval ticks every session (heartbeats, TestRequest, logon timeout).
 *
 * Margin exchange (fix.md §1 "Margin exchange"): KalshiNR, KalshiRT, KalshiDC and KalshiMD again, on listeners
 * of their own (`marginPorts`: the venue's Margin hosts), mapped onto the margin engine through
 * margin-fix-hub.ts (margin-order-entry-connection.ts; market-data-connection.ts over the Margin
 * books). They have their own one-session-per-key registries (another gateway), their own KalshiRT
 * stores, and the Margin HeartBtInt rule (optional, default 30, at least 3: the session's heartbeat option). KalshiDC too, on a
 * Margin port of its own, replaying the Margin hub's drop-copy log (drop-copy-connection.ts over margin-fix-hub.ts). No
 * Margin PT or RFQ (fix.md §1: the Margin exchange has none).
 */

import { mkdirSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/index.ts';
import {
  ActiveSessionRegistry, FileSequenceStore, FixEncoder, FixSession, isAdminMsgType, MemorySequenceStore, MsgType, type FixTransport, type SequenceStore,
} from '../../../fix/index.ts';
import type { FixActionFilter } from '../../faults/index.ts';
import type { SimServices } from '../services.ts';
import type { AcceptorContext } from './connection-base.ts';
import type { ConnectionBase } from './connection-base.ts';
import { ConnectionLimits } from './connection-limits.ts';
import { DropCopyConnection, MarginDropCopyConnection } from './drop-copy-connection.ts';
import { MarketDataConnection } from './market-data-connection.ts';
import { MarketDataHub } from './market-data-hub.ts';
import { PostTradeConnection } from './post-trade-connection.ts';
import { SettlementHub, writeSettlementReport, type SettlementPage } from './settlement-reports.ts';
import { writeExecutionReport, type ExecutionReportRecord, type ReportFlags } from './execution-report.ts';
import { OrderEntryConnection } from './order-entry-connection.ts';
import { ReportHub } from './report-hub.ts';
import { RfqConnection } from './rfq-connection.ts';
import { RfqHub } from './rfq-hub.ts';
import { MarginFixHub } from './margin-fix-hub.ts';
import { MarginOrderEntryConnection } from './margin-order-entry-connection.ts';

/** fix.md §1 Margin: HeartBtInt optional (default 30 s), at least 3. */
export const MARGIN_HEARTBEAT = { minS: 3, defaultS: 30 } as const;

export type FixSessionKindServed = 'KalshiNR' | 'KalshiRT' | 'KalshiDC' | 'KalshiPT' | 'KalshiRFQ' | 'KalshiMD';
export const FIX_SESSIONS_SERVED: readonly FixSessionKindServed[] = ['KalshiNR', 'KalshiRT', 'KalshiDC', 'KalshiPT', 'KalshiRFQ', 'KalshiMD'];
/** The Margin exchange's sessions served (fix.md §1: NR, RT, DC and MD exist there). */
export type MarginFixSessionServed = 'KalshiNR' | 'KalshiRT' | 'KalshiDC' | 'KalshiMD';
export const MARGIN_FIX_SESSIONS_SERVED: readonly MarginFixSessionServed[] = ['KalshiNR', 'KalshiRT', 'KalshiDC', 'KalshiMD'];
type Venue = 'predictions' | 'margin';

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
  /** Live connections on one listener (default 128). */
  connectionsPerListenerMax?: number;
  /** Live connections from one remote address (default 64). */
  connectionsPerSourceMax?: number;
  /** Time a connection may stay without a valid Logon, ms (default 2,000; also the wait for a Logout answer). */
  logonTimeoutMs?: number;
  /** Unsent bytes per connection above which market data and resends stop (default 1 MiB). */
  outputBytesMax?: number;
  /** Unsent bytes per connection above which it is closed (default 16 MiB). */
  outputBytesDisconnect?: number;
  /** Application messages per connection per second before it is logged out (default 2,000). */
  messagesPerSecondMax?: number;
  /** Garbled frames per connection before it is closed (default 100). */
  framingErrorsMax?: number;
  /** Outgoing messages an RT or PT store keeps for resend (default 100,000). */
  rtMessagesMax?: number;
  /** Active KalshiMD subscriptions (books and security status) per connection (fix.md §8: 100,000). */
  marketDataSubscriptionsMax?: number;
  logger?: Logger;
}

export const FIX_ACCEPTOR_DEFAULTS = Object.freeze({
  sendingTimeToleranceMs: 30_000,
  messageBytesMax: 16 * 1024,
  connectionsMax: 256,
  connectionsPerListenerMax: 128,
  connectionsPerSourceMax: 64,
  logonTimeoutMs: 2_000,
  // 1 MiB holds the largest single answer we produce in one go (a 1,024-symbol snapshot request of
  // deep books is about 0.75 MB); 16 MiB x 256 connections bounds what slow readers can pin.
  outputBytesMax: 1024 * 1024,
  outputBytesDisconnect: 16 * 1024 * 1024,
  /** Messages a resend writes per event-loop turn (a 30,000-message replay never stalls the loop). */
  resendStepMax: 500,
  messagesPerSecondMax: 2_000,
  framingErrorsMax: 100,
  rtMessagesMax: 100_000,
  marketDataSubscriptionsMax: 100_000,
  tickIntervalMs: 1_000,
  closeGraceMs: 2_000,
});

interface Live {
  socket: Socket;
  session: FixSession;
  name: FixSessionKindServed;
  venue: Venue;
  source: string;
  /** A setImmediate continuation of a resend is queued. */
  resendQueued: boolean;
}

export class FixAcceptor {
  readonly hub: ReportHub;
  readonly rfqs: RfqHub;
  readonly ports: Record<FixSessionKindServed, number> = { KalshiNR: 0, KalshiRT: 0, KalshiDC: 0, KalshiPT: 0, KalshiRFQ: 0, KalshiMD: 0 };
  readonly marketData: MarketDataHub;
  readonly settlements: SettlementHub;
  readonly marginPorts: Record<MarginFixSessionServed, number> = { KalshiNR: 0, KalshiRT: 0, KalshiDC: 0, KalshiMD: 0 };
  readonly margin: MarginFixHub;
  readonly #marginRegistry = new ActiveSessionRegistry();
  readonly #marginMdRegistry = new ActiveSessionRegistry();
  readonly #marginRtStores = new Map<string, SequenceStore>();
  readonly #options: FixAcceptorOptions;
  readonly #context: AcceptorContext;
  readonly #registry = new ActiveSessionRegistry();
  readonly #mdRegistry = new ActiveSessionRegistry();
  readonly #rtStores = new Map<string, SequenceStore>();
  readonly #ptStores = new Map<string, SequenceStore>();
  /** Keys that opened KalshiPT with settlement reports on -> their user. */
  readonly #ptKeys = new Map<string, string>();
  readonly #ptLive = new Map<string, PostTradeConnection>();
  readonly #rtFlags = new Map<string, ReportFlags>(); // keys whose last order-entry session was RT
  readonly #servers: Server[] = [];
  readonly #live = new Set<Live>();
  readonly #limits: ConnectionLimits<Live>;
  readonly #encoder = new FixEncoder();
  readonly #detach: Array<() => void> = [];
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
      outputBytesMax: options.outputBytesMax ?? FIX_ACCEPTOR_DEFAULTS.outputBytesMax,
      logonTimes: new Map(),
    };
    this.#limits = new ConnectionLimits<Live>({
      totalMax: options.connectionsMax ?? FIX_ACCEPTOR_DEFAULTS.connectionsMax,
      perListenerMax: options.connectionsPerListenerMax ?? FIX_ACCEPTOR_DEFAULTS.connectionsPerListenerMax,
      perSourceMax: options.connectionsPerSourceMax ?? FIX_ACCEPTOR_DEFAULTS.connectionsPerSourceMax,
      sourceOf: (live) => live.source,
      listenerOf: (live) => `${live.venue}:${live.name}`,
      pending: (live) => live.session.state === 'awaiting-logon' || live.session.state === 'idle',
      evict: (live) => live.socket.destroy(),
    });
    this.marketData = new MarketDataHub(services.engine);
    this.rfqs = new RfqHub(services.engine, this.hub);
    this.settlements = new SettlementHub({
      engine: services.engine,
      users: () => new Set(this.#ptKeys.values()),
      deliver: (userId, page) => this.#deliverSettlement(userId, page),
    });
    this.margin = new MarginFixHub(services.margin, now);
    if (options.storeDir) mkdirSync(options.storeDir, { recursive: true, mode: 0o700 });
  }

  /** Starts every listener on `host`, port 0 each; resolves with the bound ports. */
  async listen(): Promise<Record<FixSessionKindServed, number>> {
    this.#detach.push(this.hub.attach(), this.rfqs.attach(), this.marketData.attach(), this.settlements.attach(), this.margin.attach());
    this.#detach.push(this.#context.faults.attachFix({ dropConnections: (filter) => this.#dropConnections(filter) }));
    for (const name of FIX_SESSIONS_SERVED) this.ports[name] = await this.#listenFor(name, 'predictions');
    for (const name of MARGIN_FIX_SESSIONS_SERVED) this.marginPorts[name] = await this.#listenFor(name, 'margin');
    this.#timer = setInterval(() => {
      for (const live of this.#live) live.session.tick();
      // Margin expiries (and funding) happen on the clock even without requests, so a session hears of them when they are due.
      if (this.margin.hasSessions()) this.margin.engine.advance();
    }, FIX_ACCEPTOR_DEFAULTS.tickIntervalMs);
    this.#timer.unref();
    return this.ports;
  }

  async #listenFor(name: FixSessionKindServed, venue: Venue): Promise<number> {
    const onSocket = (socket: Socket): void => this.#accept(socket, name, venue);
    const tls = this.#options.tls;
    // The TLS handshake gets the logon timeout too: a socket that never finishes it is not yet counted here.
    const handshakeTimeout = this.#options.logonTimeoutMs ?? FIX_ACCEPTOR_DEFAULTS.logonTimeoutMs;
    const server = tls
      ? createTlsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2', handshakeTimeout }, onSocket)
      : createTcpServer(onSocket);
    server.on('error', (error) => this.#context.logger.error({ err: error, session: name, venue }, 'fix: listener error'));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, this.#options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#servers.push(server);
    return (server.address() as AddressInfo).port;
  }

  /** Stops listening, drops every connection and closes the stores. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    for (const detach of this.#detach) detach();
    this.#detach.length = 0;
    for (const live of this.#live) live.socket.destroy();
    this.#live.clear();
    await Promise.all(this.#servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    for (const store of this.#rtStores.values()) store.close();
    this.#rtStores.clear();
    for (const store of this.#ptStores.values()) store.close();
    this.#ptStores.clear();
    for (const store of this.#marginRtStores.values()) store.close();
    this.#marginRtStores.clear();
  }

  #accept(socket: Socket, name: FixSessionKindServed, venue: Venue): void {
    const options = this.#options;
    if (this.#closed) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    const connection = venue === 'margin' ? this.#marginConnectionFor(name) : this.#connectionFor(name);
    // The RT/PT bookkeeping of #noteLogon is the Predictions venue's; a Margin logon must not touch it.
    if (venue === 'predictions') connection.afterLogon = () => this.#noteLogon(connection, name);
    connection.dropConnection = () => socket.destroy();
    connection.outputBytes = () => socket.writableLength;
    // Wire-to-wire probe (../probe.ts): when each chunk of an order-entry socket was read (this listener
    // runs before the session's, below), taken by the connection's NewOrderSingle as its arrival.
    const wireProbe = options.services.probe;
    if (wireProbe !== null && connection instanceof OrderEntryConnection) {
      connection.wireProbe = wireProbe;
      socket.on('data', () => wireProbe.noteFixBytes());
    }
    const outputBytesMax = this.#context.outputBytesMax;
    const session = new FixSession({
      role: 'acceptor',
      sessionNames: [name],
      clock: options.clock,
      sendingTimeToleranceMs: options.sendingTimeToleranceMs ?? FIX_ACCEPTOR_DEFAULTS.sendingTimeToleranceMs,
      messageBytesMax: options.messageBytesMax ?? FIX_ACCEPTOR_DEFAULTS.messageBytesMax,
      handshakeTimeoutMs: options.logonTimeoutMs ?? FIX_ACCEPTOR_DEFAULTS.logonTimeoutMs,
      registry: venue === 'margin' ? (name === 'KalshiMD' ? this.#marginMdRegistry : this.#marginRegistry) : name === 'KalshiMD' ? this.#mdRegistry : this.#registry,
      publicKeyOf: (keyId) => this.#context.keys.get(keyId)?.publicKey ?? null,
      storeFor: (keyId, sessionName) => (venue === 'margin'
        ? (sessionName === 'KalshiRT' ? this.#marginRtStore(keyId) : new MemorySequenceStore())
        : sessionName === 'KalshiRT' ? this.#rtStore(keyId) : sessionName === 'KalshiPT' ? this.#ptStore(keyId) : new MemorySequenceStore()),
      authorize: (logon, keyId, kind) => connection.authorize(logon, keyId, kind),
      heartbeat: venue === 'margin' ? MARGIN_HEARTBEAT : undefined,
      outputBlocked: () => socket.writableLength >= outputBytesMax,
      resendStepMax: FIX_ACCEPTOR_DEFAULTS.resendStepMax,
      admitResend: () => connection.chargeMessages(1),
    }, connection);
    const live: Live = { socket, session, name, venue, source: socket.remoteAddress ?? '', resendQueued: false };
    if (!this.#limits.admit(live)) {
      socket.destroy();
      return;
    }
    this.#live.add(live);
    this.#wire(live);
  }

  /** The socket's handlers and the session's transport (the output budget's disconnect bound is here). */
  #wire(live: Live): void {
    const { socket, session, name } = live;
    const faults = this.#context.faults;
    const logger = this.#context.logger;
    const disconnectBytes = this.#options.outputBytesDisconnect ?? FIX_ACCEPTOR_DEFAULTS.outputBytesDisconnect;
    const transport: FixTransport = {
      write(bytes: Uint8Array): void {
        if (socket.destroyed) return;
        if (faults.fixActive && droppedByFault(bytes, name, session.keyId, faults)) return;
        socket.write(Buffer.from(bytes));
        // Nothing an order-entry session sends is dropped; a peer that does not read it loses the connection instead.
        if (socket.writableLength > disconnectBytes) {
          logger.warn({ session: name, keyId: session.keyId, unsentBytes: socket.writableLength }, 'fix: peer not reading, closing');
          socket.destroy();
        }
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
        logger.error({ err: error, session: name }, 'fix: session failed on input; closing the connection');
        socket.destroy();
      } finally {
        socket.uncork();
      }
      if (session.resending) this.#continueResend(live);
    });
    // A resend paused on the output budget goes on once the peer has read what was sent.
    socket.on('drain', () => this.#continueResend(live));
    socket.on('error', () => { /* 'close' follows */ });
    socket.on('close', () => {
      this.#live.delete(live);
      this.#limits.release(live);
      session.disconnected();
    });
    session.connect(transport);
  }

  /** One more step of the session's resend on a later turn, unless the output budget holds it until 'drain'. */
  #continueResend(live: Live): void {
    if (live.resendQueued || !live.session.resending || live.socket.destroyed) return;
    if (live.socket.writableLength >= this.#context.outputBytesMax) return; // 'drain' comes
    live.resendQueued = true;
    setImmediate(() => {
      live.resendQueued = false;
      if (live.socket.destroyed) return;
      live.socket.cork();
      try {
        live.session.continueResend();
      } finally {
        live.socket.uncork();
      }
      this.#continueResend(live);
    });
  }

  #connectionFor(name: FixSessionKindServed): ConnectionBase {
    switch (name) {
      case 'KalshiDC': return new DropCopyConnection(this.#context, name);
      case 'KalshiRFQ': return new RfqConnection(this.#context, name, this.rfqs);
      case 'KalshiMD': return new MarketDataConnection(this.#context, name, this.marketData,
        this.#options.marketDataSubscriptionsMax ?? FIX_ACCEPTOR_DEFAULTS.marketDataSubscriptionsMax);
      case 'KalshiPT': {
        const connection = new PostTradeConnection(this.#context, name);
        connection.onLive = (pt, up) => {
          if (up) this.#ptLive.set(pt.keyId, pt);
          else if (this.#ptLive.get(pt.keyId) === pt) this.#ptLive.delete(pt.keyId);
        };
        return connection;
      }
      // KalshiRT serves the RFQ requester too (fix.md §7); KalshiNR does not.
      default: return new OrderEntryConnection(this.#context, name, name === 'KalshiRT' ? this.rfqs : null);
    }
  }

  #marginConnectionFor(name: FixSessionKindServed): ConnectionBase {
    if (name === 'KalshiMD') {
      return new MarketDataConnection(this.#context, name, this.margin, this.#options.marketDataSubscriptionsMax ?? FIX_ACCEPTOR_DEFAULTS.marketDataSubscriptionsMax);
    }
    if (name === 'KalshiDC') return new MarginDropCopyConnection(this.#context, name, this.margin);
    const services = this.#options.services;
    return new MarginOrderEntryConnection(this.#context, name, this.margin, services.marginOrderGroups, (userId, subaccount) => services.ensureMarginAccount(userId, subaccount));
  }

  #marginRtStore(keyId: string): SequenceStore {
    let store = this.#marginRtStores.get(keyId);
    if (store === undefined) {
      const messagesMax = this.#options.rtMessagesMax ?? FIX_ACCEPTOR_DEFAULTS.rtMessagesMax;
      store = this.#options.storeDir
        ? new FileSequenceStore(join(this.#options.storeDir, `${keyId.replace(/[^A-Za-z0-9-]/g, '_')}-margin-KalshiRT`), { messagesMax })
        : new MemorySequenceStore({ messagesMax });
      this.#marginRtStores.set(keyId, store);
    }
    return store;
  }

  #dropConnections(filter: FixActionFilter): number {
    let count = 0;
    for (const live of this.#live) {
      if (filter.session !== undefined && filter.session !== live.name) continue;
      if (filter.keyId !== undefined && filter.keyId !== live.session.keyId) continue;
      live.socket.destroy();
      count++;
    }
    return count;
  }

  #ptStore(keyId: string): SequenceStore {
    let store = this.#ptStores.get(keyId);
    if (store === undefined) {
      const messagesMax = this.#options.rtMessagesMax ?? FIX_ACCEPTOR_DEFAULTS.rtMessagesMax;
      store = this.#options.storeDir
        ? new FileSequenceStore(join(this.#options.storeDir, `${keyId.replace(/[^A-Za-z0-9-]/g, '_')}-KalshiPT`), { messagesMax })
        : new MemorySequenceStore({ messagesMax });
      this.#ptStores.set(keyId, store);
    }
    return store;
  }

  /** One settlement page to every PT key of the user: the live session, or the key's store. */
  #deliverSettlement(userId: string, page: SettlementPage): void {
    for (const [keyId, owner] of this.#ptKeys) {
      if (owner !== userId) continue;
      const live = this.#ptLive.get(keyId);
      if (live !== undefined && live.deliver(page)) continue;
      const store = this.#ptStore(keyId);
      const seq = store.nextOutgoing();
      const encoder = this.#encoder.begin(MsgType.MarketSettlementReport, 'KalshiPT', keyId, seq, this.#options.clock.nowMs());
      writeSettlementReport(encoder, page);
      const bytes = encoder.finish();
      store.setNextOutgoing(seq + 1);
      store.saveOutgoing(seq, bytes);
    }
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

  #noteLogon(connection: ConnectionBase, name: FixSessionKindServed): void {
    const keyId = connection.keyId;
    if (name === 'KalshiRT') this.#rtFlags.set(keyId, { ...connection.flags });
    else if (name === 'KalshiNR') this.#rtFlags.delete(keyId);
    else if (name === 'KalshiPT') {
      if ((connection as PostTradeConnection).receiveSettlementReports) this.#ptKeys.set(keyId, connection.userId);
      else this.#ptKeys.delete(keyId);
    }
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

/**
 * fix_drop_outbound on one outbound message: true when it must not be written. Only application
 * messages, and never a resend (43=Y), so a replay always gets through.
 */
function droppedByFault(bytes: Uint8Array, name: string, keyId: string, faults: AcceptorContextFaults): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = buffer.indexOf('\x0135=', 0, 'latin1');
  if (at === -1) return false;
  const end = buffer.indexOf(0x01, at + 4);
  if (end === -1) return false;
  const msgType = buffer.toString('latin1', at + 4, end);
  if (isAdminMsgType(msgType) || buffer.indexOf('\x0143=Y\x01', end, 'latin1') !== -1) return false;
  return faults.decideFix('outbound', name, msgType, keyId).kind === 'fix_drop_outbound';
}

type AcceptorContextFaults = AcceptorContext['faults'];
