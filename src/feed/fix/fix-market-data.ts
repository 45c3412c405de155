/**
 * The FIX market-data source (KalshiMD, shared/spec/fix.md §8): one persistent connection (node:tls
 * against the venue's market-data host, plain TCP against the local simulator) carrying an
 * initiator FixSession (src/fix: signed Logon, 141=Y as KalshiMD requires, heartbeats), that
 * subscribes the markets it is given (MarketDataRequest 263=1 and SecurityStatusRequest 263=1) and
 * applies what comes back into the SAME BookStore the WebSocket feed owns, under the store's rules:
 *
 * - Each W (snapshot) and each book entry of an X (increment) is one step of a synthetic sequence
 *   on a sid of this connection (FIX_SID_BASE + connection number, never a WebSocket sid), so the
 *   store's checks hold as they do for the WebSocket: a snapshot binds the book to the sid, a delta
 *   for a book without one or off the grid breaks it.
 * - KalshiMD does not retransmit (fix.md §3): a MsgSeqNum gap means lost increments. The session
 *   reports it ('gap') and the sid's sequence is made to jump, so the store marks every book of the
 *   connection out of sync (SEQ_GAP), exactly like a WebSocket seq gap. A lost connection resets the
 *   sid (RESYNC). A MarketDataRequestReject (Y) leaves the books it names unsynced.
 * - A book out of sync is repaired by a new snapshot request: 263=0 while its 263=1 subscription is
 *   live, 263=1 when not (after a reconnect or a reject); asked again after resyncTimeoutMs.
 * - X carries a level's new total (271; §12 item 9, our reading), so the delta applied is the new
 *   total minus the book's size; 279=2 empties the level. Offer (269=1) prices are YES-scale asks
 *   (§12 item 8, the simulator's reading): the store keeps NO bids at NO prices, 1 - price.
 * - SecurityStatus (f) sets the market registry's open flag: 3 open; 2, 100, 101 closed (101 also
 *   ends the market's subscription, as the venue drops it).
 *
 * Trade entries (269=2) are counted, not forwarded: trades, fills, user orders and positions still
 * come from the WebSocket feed (config feed.source, config/README.md). Listener calls
 * (onBookUpdate, onBookResynced) are the FeedListener's, made after the store accepted the data.
 */

import type { KeyObject } from 'node:crypto';
import { PRICE_ONE, systemClock, type Clock, type Count, type Price } from '../../core/index.ts';
import { ApplyStatus, type BookStore, type OrderBook } from '../../book/index.ts';
import type { MarketRegistry } from '../../market/index.ts';
import {
  FixGroup, FixLink, INT_INVALID, MemorySequenceStore, MsgType, Tag, type FixMessage, type FixSession, type FixSessionEvent,
} from '../../fix/index.ts';
import { silentLogger, type FeedLogger } from '../feed-logger.ts';

/** Sids of FIX connections start here, far above any WebSocket sid. */
export const FIX_SID_BASE = 1 << 30;

export interface FixMarketDataListener {
  onBookUpdate(book: OrderBook): void;
  onBookResynced(book: OrderBook): void;
}

export interface FixMarketDataOptions {
  host: string;
  port: number;
  /** TLS options (the venue: TLS 1.2+) or null for plain TCP (the local simulator). */
  tls: { ca?: string | Buffer; servername?: string; rejectUnauthorized?: boolean } | null;
  keyId: string;
  privateKey: KeyObject;
  /** The WebSocket feed's store and registry: the books the rest of the runtime reads. */
  books: BookStore;
  markets: MarketRegistry;
  clock?: Clock;
  logger?: FeedLogger;
  /** TargetCompID (default KalshiMD; ExchangeMD is an alias). */
  sessionName?: string;
  heartbeatIntervalS?: number; // default 30
  reconnectMinMs?: number; // default 250, doubling ...
  reconnectMaxMs?: number; // ... up to this, default 30,000
  connectTimeoutMs?: number; // TCP/TLS connect, default 10,000
  /** A snapshot asked for and not received within this is asked again, ms (default 5,000). */
  resyncTimeoutMs?: number;
  /** Symbols per MarketDataRequest (default 100). */
  symbolsPerRequest?: number;
  /** Snapshot requests per tick at most (default 20): a storm of gaps cannot flood the session. */
  requestsPerTick?: number;
  tickMs?: number; // default 100
}

export interface FixMarketDataStats {
  connects: number;
  disconnects: number;
  snapshots: number;
  entriesApplied: number;
  entriesRefused: number;
  trades: number;
  rejects: number;
  gaps: number;
  snapshotRequests: number;
  statusUpdates: number;
  unknownSymbols: number;
}

/** One market this source maintains. */
class Wanted {
  readonly ticker: string;
  readonly book: OrderBook;
  /** False once the venue settled it (326=101): nothing more comes. */
  active = true;
  /** Our 263=1 subscription is believed live on the current connection. */
  venueSubscribed = false;
  /** When the pending snapshot was asked for, -1 when none is pending. */
  requestedMs = -1;
  /** No snapshot has synced the book yet: the first one is not a repair (no onBookResynced). */
  initial = true;
  constructor(ticker: string, book: OrderBook) {
    this.ticker = ticker;
    this.book = book;
  }
}

const NOOP_LISTENER: FixMarketDataListener = { onBookUpdate: () => {}, onBookResynced: () => {} };

export class FixMarketData {
  readonly stats: FixMarketDataStats = {
    connects: 0, disconnects: 0, snapshots: 0, entriesApplied: 0, entriesRefused: 0, trades: 0, rejects: 0, gaps: 0,
    snapshotRequests: 0, statusUpdates: 0, unknownSymbols: 0,
  };
  readonly #options: FixMarketDataOptions;
  readonly #clock: Clock;
  readonly #logger: FeedLogger;
  readonly #link: FixLink;
  readonly #session: FixSession;
  readonly #wanted = new Map<string, Wanted>();
  /** MDReqID -> the request's symbols and type, until answered (a Y names its request by 262). */
  readonly #requests = new Map<string, { type: 0 | 1; tickers: string[] }>();
  readonly #group = new FixGroup(4096);
  readonly #changed = new Set<OrderBook>();
  #listener: FixMarketDataListener = NOOP_LISTENER;
  #stopped = false;
  #connection = 0;
  #sid = FIX_SID_BASE;
  #seq = 0;
  #requestId = 0;

  constructor(options: FixMarketDataOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#link = new FixLink({
      host: options.host, port: options.port, tls: options.tls, clock: this.#clock,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000, reconnectMinMs: options.reconnectMinMs ?? 250,
      reconnectMaxMs: options.reconnectMaxMs ?? 30_000, tickMs: options.tickMs ?? 100,
      session: {
        role: 'initiator',
        sessionName: options.sessionName ?? 'KalshiMD',
        keyId: options.keyId,
        privateKey: options.privateKey,
        heartbeatIntervalS: options.heartbeatIntervalS ?? 30,
        store: new MemorySequenceStore(), // 141=Y at every logon: nothing to keep across connections
        resetSeqNum: true,
        clock: this.#clock,
      },
    }, {
      onMessage: (message) => this.#onMessage(message),
      onEvent: (event) => this.#onEvent(event),
      receive: (chunk, session) => {
        try {
          session.receive(chunk);
        } catch (error) {
          this.#logger.error({ err: error }, 'fix-md: failed on input; dropping the connection');
          this.#link.drop();
        }
      },
      onTick: () => this.#requestOverdue(),
    });
    this.#session = this.#link.session;
  }

  setListener(listener: FixMarketDataListener): void {
    this.#listener = listener;
  }

  get sessionState(): string {
    return this.#session.state;
  }

  /** The sid of the current connection (tests). */
  get sid(): number {
    return this.#sid;
  }

  /** Connects, and keeps reconnecting with doubling backoff until stop(). */
  start(): void {
    this.#link.start();
  }

  /** Logs out (bounded wait) and stops reconnecting; the books are left out of sync (RESYNC). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#link.close();
  }

  /** Maintains these markets' books (each must already be in the store: Feed.addMarket). */
  subscribe(tickers: readonly string[]): void {
    const added: Wanted[] = [];
    for (const ticker of tickers) {
      if (this.#wanted.has(ticker)) continue;
      const book = this.#options.books.get(ticker);
      if (book === undefined) throw new Error(`FixMarketData.subscribe: ${ticker} has no book (add it to the feed first)`);
      const wanted = new Wanted(ticker, book);
      this.#wanted.set(ticker, wanted);
      added.push(wanted);
    }
    if (this.#session.state === 'active') this.#subscribeAll(added);
  }

  /** Asks a fresh snapshot for a market now (as after a break). */
  resync(ticker: string): void {
    const wanted = this.#wanted.get(ticker);
    if (wanted === undefined) return;
    this.#options.books.markOutOfSync(ticker, ApplyStatus.RESYNC);
    wanted.requestedMs = -1;
    this.tick();
  }

  /** Session heartbeats and overdue snapshot requests; driven by start()'s interval, public for tests. */
  tick(): void {
    this.#session.tick();
    this.#requestOverdue();
  }

  /** Snapshot (or subscription) requests for books not in sync and not asked for recently. */
  #requestOverdue(): void {
    if (this.#session.state !== 'active') return;
    const now = this.#clock.nowMs();
    const timeoutMs = this.#options.resyncTimeoutMs ?? 5_000;
    const budget = this.#options.requestsPerTick ?? 20;
    const subscribe: Wanted[] = [];
    const snapshot: Wanted[] = [];
    for (const wanted of this.#wanted.values()) {
      if (!wanted.active || wanted.book.synced) continue;
      if (wanted.requestedMs >= 0 && now - wanted.requestedMs < timeoutMs) continue;
      if (subscribe.length + snapshot.length >= budget * (this.#options.symbolsPerRequest ?? 100)) break;
      (wanted.venueSubscribed ? snapshot : subscribe).push(wanted);
    }
    if (subscribe.length > 0) this.#request(1, subscribe);
    if (snapshot.length > 0) this.#request(0, snapshot);
  }

  // ---- connection ----

  #onEvent(event: FixSessionEvent): void {
    switch (event.type) {
      case 'logon':
        this.#onLogon();
        return;
      case 'gap':
        this.#onGap(event.text);
        return;
      case 'closed':
        this.#onClosed();
        return;
      case 'logon-refused':
      case 'logout':
      case 'timeout':
      case 'reject-received':
      case 'framing-error':
        this.#logger.warn({ type: event.type, code: event.code, text: event.text }, 'fix-md: session event');
        return;
      default:
        return;
    }
  }

  #onLogon(): void {
    this.stats.connects++;
    this.#connection++;
    this.#sid = FIX_SID_BASE + this.#connection;
    this.#seq = 0;
    this.#requests.clear();
    this.#logger.info({ host: this.#options.host, port: this.#options.port, markets: this.#wanted.size }, 'fix-md: logged on');
    this.#subscribeAll([...this.#wanted.values()]);
  }

  #onClosed(): void {
    this.stats.disconnects++;
    // The connection's data stops: every book it fed waits for a snapshot on the next one.
    this.#options.books.resetSubscription(this.#sid);
    for (const wanted of this.#wanted.values()) {
      wanted.venueSubscribed = false;
      wanted.requestedMs = -1;
    }
  }

  /** fix.md §3: a gap on KalshiMD cannot be recovered: every book of the connection is out of sync. */
  #onGap(text: string): void {
    this.stats.gaps++;
    this.#logger.warn({ text, sid: this.#sid }, 'fix-md: MsgSeqNum gap; resynchronising every book');
    this.#seq += 2;
    this.#options.books.advanceSeq(this.#sid, this.#seq); // SEQ_GAP: the store breaks the sid's books
    for (const wanted of this.#wanted.values()) if (wanted.requestedMs >= 0) wanted.requestedMs = -1;
  }

  #subscribeAll(list: Wanted[]): void {
    const active = list.filter((wanted) => wanted.active);
    for (const wanted of active) wanted.requestedMs = -1; // asked for just below
    for (const wanted of active) {
      this.#session.begin(MsgType.SecurityStatusRequest).string(Tag.SubscriptionRequestType, '1').string(Tag.Symbol, wanted.ticker);
      this.#session.send();
    }
    this.#requestOverdue();
  }

  #request(type: 0 | 1, list: Wanted[]): void {
    const per = this.#options.symbolsPerRequest ?? 100;
    const now = this.#clock.nowMs();
    for (let from = 0; from < list.length; from += per) {
      const slice = list.slice(from, from + per);
      const id = `md${++this.#requestId}`;
      const encoder = this.#session.begin(MsgType.MarketDataRequest).string(Tag.MDReqID, id)
        .string(Tag.SubscriptionRequestType, type === 0 ? '0' : '1').int(Tag.NoRelatedSym, slice.length);
      for (const wanted of slice) encoder.string(Tag.Symbol, wanted.ticker);
      this.#session.send();
      this.stats.snapshotRequests++;
      this.#requests.set(id, { type, tickers: slice.map((wanted) => wanted.ticker) });
      for (const wanted of slice) {
        wanted.requestedMs = now;
        if (type === 1) wanted.venueSubscribed = true;
      }
    }
  }

  // ---- messages ----

  #onMessage(message: FixMessage): void {
    switch (message.msgType()) {
      case MsgType.MarketDataSnapshotFullRefresh:
        this.#onSnapshot(message);
        break;
      case MsgType.MarketDataIncrementalRefresh:
        this.#onIncrement(message);
        break;
      case MsgType.MarketDataRequestReject:
        this.#onReject(message);
        break;
      case MsgType.SecurityStatus:
        this.#onStatus(message);
        break;
      default:
        this.#logger.debug({ msgType: message.msgType() }, 'fix-md: message ignored');
    }
  }

  #onSnapshot(message: FixMessage): void {
    const symbol = message.getString(Tag.Symbol);
    const wanted = symbol === null ? undefined : this.#wanted.get(symbol);
    if (wanted === undefined || !wanted.active) {
      this.stats.unknownSymbols++;
      return;
    }
    const books = this.#options.books;
    const book = books.beginSnapshot(this.#sid, ++this.#seq, wanted.ticker);
    if (book === null) return; // the sequence broke: reported by the store, repaired by tick()
    const count = message.readGroup(Tag.NoMDEntries, Tag.MDEntryType, this.#group, null);
    let ok = count >= 0;
    for (let k = 0; ok && k < count; k++) {
      const start = this.#group.start(k);
      const end = this.#group.end(k);
      const type = message.intAt(message.indexOf(Tag.MDEntryType, start, end));
      const price = message.priceAt(message.indexOf(Tag.MDEntryPx, start, end));
      const size = message.countAt(message.indexOf(Tag.MDEntrySize, start, end));
      if (price === INT_INVALID || size === INT_INVALID || (type !== 0 && type !== 1)) {
        ok = false;
        break;
      }
      const status = type === 0
        ? books.snapshotLevel(book, 0, price as Price, size as Count)
        : books.snapshotLevel(book, 1, (PRICE_ONE - price) as Price, size as Count);
      ok = status === ApplyStatus.OK;
    }
    if (!ok) book.breakSync(ApplyStatus.OFF_GRID);
    books.endSnapshot(book);
    wanted.requestedMs = -1;
    if (!book.synced) return;
    this.stats.snapshots++;
    if (!wanted.initial) this.#listener.onBookResynced(book);
    wanted.initial = false;
    this.#listener.onBookUpdate(book);
  }

  #onIncrement(message: FixMessage): void {
    const count = message.readGroup(Tag.NoMDEntries, Tag.MDUpdateAction, this.#group, null);
    if (count <= 0) return;
    const books = this.#options.books;
    let symbol: string | null = null;
    let wanted: Wanted | undefined;
    for (let k = 0; k < count; k++) {
      const start = this.#group.start(k);
      const end = this.#group.end(k);
      const symbolAt = message.indexOf(Tag.Symbol, start, end);
      if (symbolAt !== -1 && (symbol === null || !message.valueEqualsAt(symbolAt, symbol))) {
        symbol = message.stringAt(symbolAt);
        wanted = symbol === null ? undefined : this.#wanted.get(symbol);
      }
      if (wanted === undefined || !wanted.active) continue;
      const type = message.intAt(message.indexOf(Tag.MDEntryType, start, end));
      if (type === 2) {
        this.stats.trades++;
        continue;
      }
      const action = message.intAt(message.indexOf(Tag.MDUpdateAction, start, end));
      const wirePrice = message.priceAt(message.indexOf(Tag.MDEntryPx, start, end));
      const size = action === 2 ? 0 : message.countAt(message.indexOf(Tag.MDEntrySize, start, end));
      const book = wanted.book;
      if ((type !== 0 && type !== 1) || wirePrice === INT_INVALID || size === INT_INVALID || size < 0) {
        this.stats.entriesRefused++;
        book.breakSync(ApplyStatus.OFF_GRID);
        continue;
      }
      const side: 0 | 1 = type === 0 ? 0 : 1;
      const price = (side === 0 ? wirePrice : PRICE_ONE - wirePrice) as Price;
      const delta = size - book.sizeAtPrice(side, price);
      if (delta === 0) continue;
      const status = books.applyDeltaToBook(this.#sid, ++this.#seq, book, side, price, delta as Count);
      if (status === ApplyStatus.OK) {
        this.stats.entriesApplied++;
        this.#changed.add(book);
      } else {
        this.stats.entriesRefused++; // breaks are reported by the store; tick() asks the snapshot
      }
    }
    if (this.#changed.size === 0) return;
    for (const book of this.#changed) this.#listener.onBookUpdate(book);
    this.#changed.clear();
  }

  #onReject(message: FixMessage): void {
    this.stats.rejects++;
    const id = message.getString(Tag.MDReqID);
    const request = id === null ? undefined : this.#requests.get(id);
    this.#logger.warn({ reason: message.getInt(Tag.MDReqRejReason), text: message.getString(Tag.Text), request: id }, 'fix-md: MarketDataRequestReject');
    const now = this.#clock.nowMs();
    const tickers = request?.tickers ?? [...this.#wanted.values()].filter((wanted) => wanted.requestedMs >= 0).map((wanted) => wanted.ticker);
    for (const ticker of tickers) {
      const wanted = this.#wanted.get(ticker);
      if (wanted === undefined) continue;
      if (request === undefined || request.type === 1) wanted.venueSubscribed = false;
      wanted.requestedMs = now; // asked again after resyncTimeoutMs
      this.#options.books.markOutOfSync(ticker, ApplyStatus.RESYNC);
    }
    if (id !== null) this.#requests.delete(id);
  }

  #onStatus(message: FixMessage): void {
    const symbol = message.getString(Tag.Symbol);
    const status = message.getInt(Tag.SecurityTradingStatus);
    if (symbol === null || status === INT_INVALID) return;
    const markets = this.#options.markets;
    const index = markets.indexOf(symbol);
    if (index === -1) return;
    this.stats.statusUpdates++;
    markets.setOpen(index, status === 3);
    if (status === 101) {
      const wanted = this.#wanted.get(symbol);
      if (wanted !== undefined) wanted.active = false; // §8: the venue dropped the subscription
    }
  }
}
