/**
 * The Feed: one exchange WebSocket session turned into order books and listener calls. It wires
 * the session (ws-session.ts), the frame decoder (decoders/), the subscription manager
 * (subscriptions.ts), the resync manager (resync.ts) and the BookStore it owns, and drives them
 * from one coarse tick. The delta path - the socket's bytes, scanned in place, applyDelta,
 * onBookUpdate - runs synchronously with no allocation of ours (on Node 20 the hop stamps' clock
 * reads box their results: hop-record.ts); everything else (snapshots, private messages,
 * commands) is off that path. bench/feed counts the collections over 1,000,000 frames.
 *
 * It never decides anything about trading: it keeps books right and says when they are not.
 * Malformed frames and unknown types are counted, logged and dropped; a text frame that is not
 * UTF-8 is counted as malformed and fails the connection (1007, RFC 6455 §8.1), which reconnects
 * and resyncs. Nothing thrown while handling a frame (listeners included) escapes the message
 * handler.
 */

import { PRICE_INVALID, PriceGrid, complementPrice, systemClock, type Clock, type PriceLevelStructure, type Price } from '../core/index.ts';
import { ApplyStatus, BookStore, applyStatusName, type OrderBook } from '../book/index.ts';
import { nowNs } from '../telemetry/index.ts';
import { Channel, TERMINAL_ERROR_CODES, isMarketFiltered, isTransientError } from './channels.ts';
import { MessageKind } from './decoders/decode-status.ts';
import { FrameDecoder, type FeedVenue } from './decoders/frame-decoder.ts';
import type { MarginTickerRecord } from './decoders/margin-ticker.ts';
import type { MarketLifecycleRecord } from './decoders/lifecycle.ts';
import type { ControlRecord, SubscriptionListing } from './decoders/control.ts';
import type { OrderbookDeltaRecord } from './decoders/orderbook-delta.ts';
import type { OrderbookSnapshotRecord } from './decoders/orderbook-snapshot.ts';
import { FeedCounters } from './feed-counters.ts';
import { FeedErrorCode, NoopFeedListener, type FeedListener } from './feed-listener.ts';
import { silentLogger, type FeedLogger } from './feed-logger.ts';
import { handshakeSigner, type FeedAuth } from './handshake-signer.ts';
import { HopRecord } from './hop-record.ts';
import { MarketState } from './market-state.ts';
import { ResyncManager } from './resync.ts';
import { LostReason, SubscriptionManager, type CommandKind, type Subscription } from './subscriptions.ts';
import { WsSession, type ConnectionState, type FeedSession, type WsSessionOptions } from './ws-session.ts';
import { MarketRegistry } from '../market/index.ts';

export interface FeedOptions {
  /** wss://.../trade-api/ws/v2 (or the simulator's ws://127.0.0.1:PORT/trade-api/ws/v2); Margin: .../trade-api/ws/v2/margin. */
  url: string;
  /**
   * Which exchange the URL serves (default 'predictions'). 'margin': Margin field names
   * (websocket.md §7), perpetual books (addPerpMarket), no use_yes_price, the `ticker` channel.
   */
  venue?: FeedVenue;
  /** API key for the signed handshake; null connects unauthenticated. */
  auth: FeedAuth | null;
  listener?: FeedListener;
  /** pino Logger or anything with debug/info/warn/error(obj, msg). */
  logger?: FeedLogger;
  /** Wall clock (Unix ms): handshake timestamps, staleness, command timeouts. */
  clock?: Clock;
  /** Uniform [0, 1) for reconnect jitter (default Math.random). */
  random?: () => number;
  /** Subscribe with use_yes_price (NO levels arrive in YES price; converted back for the store). Default false; ignored on Margin. */
  useYesPrice?: boolean;
  /** skip_ticker_ack on subscribes: `ok` replies omit the market lists. Default false. */
  skipTickerAck?: boolean;
  /** The coarse tick driving liveness, timeouts, staleness, ms (default 250). */
  tickMs?: number;
  reconnectMinMs?: number; // default 250
  reconnectMaxMs?: number; // default 30,000
  stableAfterMs?: number; // default 10,000
  idlePingMs?: number; // default 5,000
  deadAfterMs?: number; // default 25,000 (server pings every 10 s)
  connectTimeoutMs?: number; // default 10,000
  commandsPerSec?: number; // default 2,000 (exchange limit 10,000)
  /** Longest stretch, us, the session's messages hold the event loop per turn (RawWebSocket); default 0: no limit. */
  turnBudgetUs?: number;
  commandBurst?: number; // default 100
  maxMarketsPerCommand?: number; // default 500
  maxMarketsPerSubscription?: number; // default 2,000
  commandTimeoutMs?: number; // default 10,000
  resyncCommandsPerSec?: number; // default 20
  resyncBurst?: number; // default 5
  resyncTimeoutMs?: number; // default 5,000
  /** No message for this long on an open market's synced book makes it stale, ms; 0 disables. Default 60,000. */
  staleBookMs?: number;
  /** The one market registry (shared with the gate); default a new one. */
  markets?: MarketRegistry;
  /** Builds the session (default: a WsSession). Tests pass a scripted fake. */
  createSession?: (options: WsSessionOptions) => FeedSession;
  /**
   * Sees every frame the session delivers, right after it was handled (so the orders it caused are
   * already written), with the hop record's receive stamp (0 when stamps are off): the recorder,
   * src/record. Must copy what it keeps and not throw. Absent or null: the session calls
   * handleBytes directly.
   */
  frameTap?: ((bytes: Buffer, start: number, end: number, receivedNs: number) => void) | null;
}

/** A caller slip the feed refuses: a stable code to branch on. */
export class FeedError extends Error {
  readonly code: 'FEED_UNKNOWN_MARKET' | 'FEED_BAD_CHANNEL';
  constructor(code: 'FEED_UNKNOWN_MARKET' | 'FEED_BAD_CHANNEL', message: string) {
    super(message);
    this.name = 'FeedError';
    this.code = code;
  }
}

const UNKNOWN_TYPES_LOGGED_MAX = 64;

export class Feed {
  /** The books this feed maintains. Add markets with addMarket (not books.add) so the feed knows them. */
  readonly books: BookStore;
  /** Timestamps of the frame being handled (read inside onBookUpdate). */
  readonly hop = new HopRecord();
  readonly counters = new FeedCounters();
  readonly decoder: FrameDecoder;
  readonly subscriptions: SubscriptionManager;
  readonly resync: ResyncManager;
  readonly session: FeedSession;
  /** The one registry of markets: its index is the feed's, the book's and the gate's. */
  readonly markets: MarketRegistry;
  readonly venue: FeedVenue;
  /** By registry index. */
  readonly #markets: MarketState[] = [];
  readonly #logger: FeedLogger;
  readonly #clock: Clock;
  readonly #useYesPrice: boolean;
  readonly #tickMs: number;
  readonly #deadSids = new Set<number>();
  readonly #unknownTypesLogged = new Set<string>();
  #listener: FeedListener;
  /** handleFrame's text as UTF-8 bytes (reused; grows to the longest text seen). */
  #textBytes = Buffer.allocUnsafe(4096);
  #tickTimer: ReturnType<typeof setInterval> | null = null;
  #coarseNowMs: number;

  constructor(options: FeedOptions) {
    this.#logger = options.logger ?? silentLogger;
    this.#clock = options.clock ?? systemClock;
    this.#listener = options.listener ?? new NoopFeedListener();
    this.venue = options.venue ?? 'predictions';
    // A perpetual's asks are at their own price: there is no complement to ask for.
    this.#useYesPrice = this.venue === 'predictions' && (options.useYesPrice ?? false);
    this.#tickMs = options.tickMs ?? 250;
    this.#coarseNowMs = this.#clock.nowMs();
    const nowMs = (): number => this.#clock.nowMs();
    this.markets = options.markets ?? new MarketRegistry();
    this.decoder = new FrameDecoder(this.markets, this.venue);
    // The store stamps each book's updatedAtMs with the coarse time of the feed's tick (tickMs,
    // 250 ms by default; staleness is judged in seconds): reading the wall clock per delta boxed
    // its result, 16 bytes of garbage per frame (bench/feed counts the collections).
    this.books = new BookStore({ now: () => this.#coarseNowMs, onOutOfSync: (book, reason) => this.#onBookOutOfSync(book, reason), markets: this.markets });

    const orderbookParams: Record<string, unknown> = {};
    if (this.#useYesPrice) orderbookParams.use_yes_price = true;
    const commonParams: Record<string, unknown> = {};
    if (options.skipTickerAck === true) {
      orderbookParams.skip_ticker_ack = true;
      commonParams.skip_ticker_ack = true;
    }
    const frameTap = options.frameTap ?? null;
    const sessionOptions: WsSessionOptions = {
      url: options.url,
      sign: options.auth === null ? null : handshakeSigner(options.auth),
      handler: {
        onOpen: () => this.#onOpen(),
        // Chosen once here, so a feed without a tap pays nothing for the option.
        onFrame: frameTap === null
          ? (bytes, start, end) => this.handleBytes(bytes, start, end)
          : (bytes, start, end) => {
              const utf8 = this.handleBytes(bytes, start, end);
              frameTap(bytes, start, end, this.hop.receivedNs);
              return utf8;
            },
        onClose: (code, reason) => this.#onClose(code, reason),
        onState: (state) => this.#onState(state),
      },
      logger: this.#logger,
      nowMs,
      random: options.random ?? Math.random,
      reconnectMinMs: options.reconnectMinMs ?? 250,
      reconnectMaxMs: options.reconnectMaxMs ?? 30_000,
      idlePingMs: options.idlePingMs ?? 5_000,
      deadAfterMs: options.deadAfterMs ?? 25_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      stableAfterMs: options.stableAfterMs ?? 10_000,
      turnBudgetUs: options.turnBudgetUs ?? 0,
    };
    this.session = options.createSession === undefined ? new WsSession(sessionOptions) : options.createSession(sessionOptions);
    this.subscriptions = new SubscriptionManager({
      sink: this.session,
      hooks: {
        onActive: (subscription, sid) => this.#onSubscriptionActive(subscription, sid),
        onLost: (subscription, sid, reason) => this.#onSubscriptionLost(subscription, sid, reason),
        onCommandError: (kind, subscription, code, message) => this.#onCommandError(kind, subscription, code, message),
      },
      nowMs,
      logger: this.#logger,
      commandsPerSec: options.commandsPerSec,
      commandBurst: options.commandBurst,
      maxMarketsPerCommand: options.maxMarketsPerCommand,
      maxMarketsPerSubscription: options.maxMarketsPerSubscription,
      commandTimeoutMs: options.commandTimeoutMs,
      channelParams: {
        [Channel.ORDERBOOK]: orderbookParams,
        [Channel.TRADE]: commonParams,
        [Channel.FILL]: commonParams,
        [Channel.USER_ORDERS]: commonParams,
        [Channel.MARKET_POSITIONS]: commonParams,
        [Channel.TICKER]: commonParams,
      },
    });
    this.resync = new ResyncManager({
      subscriptions: this.subscriptions,
      books: this.books,
      counters: this.counters,
      logger: this.#logger,
      nowMs,
      commandsPerSec: options.resyncCommandsPerSec,
      burst: options.resyncBurst,
      marketsPerBatch: options.maxMarketsPerCommand,
      timeoutMs: options.resyncTimeoutMs,
      staleBookMs: options.staleBookMs,
    });
  }

  // ---- wiring ---------------------------------------------------------------------------------

  setListener(listener: FeedListener): void {
    this.#listener = listener;
  }

  get state(): ConnectionState {
    return this.session.state;
  }

  /** Registers a market and its book (grid from the market's price_ranges / price_level_structure). */
  addMarket(ticker: string, grid: PriceGrid): OrderBook {
    const book = this.books.add(ticker, grid);
    const info = this.markets.add(ticker);
    if (info.grid === null) info.grid = grid;
    else this.markets.regrid(info.index, grid);
    const market = this.#markets[info.index];
    if (market === undefined) this.#markets[info.index] = new MarketState(info, book);
    else market.book = book;
    return book;
  }

  /**
   * Registers a perpetual (Margin) market and its book: bids and asks at their own prices on a
   * `tick` grid (1/10,000 $), in a window that follows the market (BookStore.addPerp). The registry
   * marks it a Margin market of that tick. For a feed on the Margin endpoint (venue 'margin').
   */
  addPerpMarket(ticker: string, tick: number): OrderBook {
    const info = this.markets.add(ticker);
    this.markets.setMargin(info.index, tick);
    const book = this.books.addPerp(ticker, tick);
    const market = this.#markets[info.index];
    if (market === undefined) this.#markets[info.index] = new MarketState(info, book);
    else market.book = book;
    return book;
  }

  /** The feed's state of a market (tests, status); undefined when not added. */
  market(ticker: string): MarketState | undefined {
    const index = this.markets.indexOf(ticker);
    return index === -1 ? undefined : this.#markets[index];
  }

  /** Connects (and keeps reconnecting) and starts the coarse tick. */
  start(): void {
    if (this.#tickTimer === null) {
      this.#tickTimer = setInterval(() => this.tick(), this.#tickMs);
      this.#tickTimer.unref?.();
    }
    this.session.start();
  }

  /** Disconnects for good and stops every timer. */
  stop(): void {
    if (this.#tickTimer !== null) clearInterval(this.#tickTimer);
    this.#tickTimer = null;
    this.session.stop();
    this.subscriptions.dispose();
    this.resync.dispose();
  }

  // ---- subscriptions --------------------------------------------------------------------------

  /** Subscribes order books (orderbook_delta) for markets added with addMarket. */
  subscribeOrderbooks(tickers: readonly string[]): void {
    for (const ticker of tickers) {
      const market = this.market(ticker);
      if (market === undefined) throw new FeedError('FEED_UNKNOWN_MARKET', `subscribeOrderbooks: ${ticker} was not added with addMarket`);
      if (market.subscribed) continue;
      market.subscribed = true;
      market.lastMessageMs = this.#coarseNowMs;
      this.resync.onSubscribed(market);
    }
    this.subscriptions.addMarkets(Channel.ORDERBOOK, tickers);
  }

  /** Stops maintaining these books: they are marked out of sync (RESYNC) and left as they are. */
  unsubscribeOrderbooks(tickers: readonly string[]): void {
    for (const ticker of tickers) {
      const market = this.market(ticker);
      if (market === undefined || !market.subscribed) continue;
      market.subscribed = false;
      this.books.markOutOfSync(ticker, ApplyStatus.RESYNC);
    }
    this.subscriptions.removeMarkets(Channel.ORDERBOOK, tickers);
  }

  /**
   * Subscribes a non-book channel: trade, fill, user_orders, market_positions (with `tickers`, or
   * null for all markets), order_group_updates, market_lifecycle_v2 (always all markets).
   */
  subscribe(channel: Exclude<Channel, 'orderbook_delta'>, tickers: readonly string[] | null = null): void {
    if ((channel as string) === Channel.ORDERBOOK) throw new FeedError('FEED_BAD_CHANNEL', 'use subscribeOrderbooks for orderbook_delta');
    if (tickers !== null && isMarketFiltered(channel)) this.subscriptions.addMarkets(channel, tickers);
    else this.subscriptions.addChannel(channel);
  }

  unsubscribe(channel: Exclude<Channel, 'orderbook_delta'>, tickers: readonly string[] | null = null): void {
    if (tickers !== null) this.subscriptions.removeMarkets(channel, tickers);
    else this.subscriptions.removeChannel(channel);
  }

  /** The server's view: list_subscriptions. */
  listSubscriptions(): Promise<readonly SubscriptionListing[]> {
    return new Promise((resolve, reject) => {
      this.subscriptions.listSubscriptions((error, list) => (error === null ? resolve(list) : reject(error)));
    });
  }

  /** Tells the feed whether a market trades (staleness only applies to open markets). Lifecycle messages set it too. */
  setMarketOpen(ticker: string, open: boolean): void {
    const index = this.markets.indexOf(ticker);
    if (index !== -1) this.markets.setOpen(index, open);
  }

  /** Marks a book out of sync (RESYNC) and asks for a fresh snapshot. */
  resyncBook(ticker: string): void {
    const market = this.market(ticker);
    if (market === undefined || !market.subscribed) return;
    this.books.markOutOfSync(ticker, ApplyStatus.RESYNC);
    this.resync.request(market);
  }

  // ---- the coarse tick ----------------------------------------------------------------------------

  /** Liveness, command timeouts, staleness, overdue resyncs. Driven by start()'s interval; public for tests. */
  tick(nowMs: number = this.#clock.nowMs()): void {
    this.#coarseNowMs = nowMs;
    try {
      this.session.onTick(nowMs);
      this.subscriptions.onTick(nowMs);
      this.resync.onTick(nowMs, this.#markets);
    } catch (error) {
      this.#logger.error({ err: error }, 'feed: tick failed');
    }
  }

  // ---- frames ---------------------------------------------------------------------------------------

  /**
   * Handles one text frame as text (tests, tools, recorded traffic): written as UTF-8 into a
   * reused buffer, then handleBytes. Never throws.
   */
  handleFrame(text: string): void {
    if (this.#textBytes.length < text.length * 3) this.#textBytes = Buffer.allocUnsafe(text.length * 3); // UTF-8: <= 3 bytes per UTF-16 unit
    const length = this.#textBytes.write(text, 0, 'utf8');
    this.handleBytes(this.#textBytes, 0, length);
  }

  /**
   * Handles one text frame as the socket's bytes[start, end) (the hot path: read in place, kept
   * by nothing after the call). Returns false when the bytes are not UTF-8: the session then
   * fails the connection (1007). Never throws.
   */
  handleBytes(bytes: Buffer, start: number, end: number): boolean {
    const hop = this.hop;
    const stamp = hop.enabled;
    hop.receivedNs = stamp ? nowNs() : 0;
    hop.appliedNs = 0;
    this.counters.framesReceived++;
    try {
      const decoder = this.decoder;
      const kind = decoder.decode(bytes, start, end);
      hop.decodedNs = stamp ? nowNs() : 0;
      hop.kind = kind;
      switch (kind) {
        case MessageKind.ORDERBOOK_DELTA:
          this.#onDelta(decoder.delta);
          return true;
        case MessageKind.ORDERBOOK_SNAPSHOT:
          this.#onSnapshot(decoder.snapshot);
          return true;
        case MessageKind.TRADE:
          if (!this.#isDead(decoder.trade.sid)) this.#listener.onTrade(decoder.trade);
          return true;
        case MessageKind.FILL:
          if (!this.#isDead(decoder.fill.sid)) this.#listener.onFill(decoder.fill);
          return true;
        case MessageKind.USER_ORDER:
          if (!this.#isDead(decoder.userOrder.sid)) this.#listener.onUserOrder(decoder.userOrder);
          return true;
        case MessageKind.MARKET_POSITION:
          if (!this.#isDead(decoder.marketPosition.sid)) this.#listener.onMarketPosition(decoder.marketPosition);
          return true;
        case MessageKind.ORDER_GROUP_UPDATE:
          if (!this.#isDead(decoder.orderGroupUpdate.sid)) this.#listener.onOrderGroupUpdate(decoder.orderGroupUpdate);
          return true;
        case MessageKind.MARKET_LIFECYCLE:
          if (!this.#isDead(decoder.marketLifecycle.sid)) this.#onMarketLifecycle(decoder.marketLifecycle);
          return true;
        case MessageKind.EVENT_LIFECYCLE:
          if (!this.#isDead(decoder.eventLifecycle.sid)) this.#listener.onLifecycle(decoder.eventLifecycle);
          return true;
        case MessageKind.EVENT_FEE_UPDATE:
          if (!this.#isDead(decoder.eventFeeUpdate.sid)) this.#listener.onLifecycle(decoder.eventFeeUpdate);
          return true;
        case MessageKind.RFQ:
          if (!this.#isDead(decoder.rfq.sid)) this.#listener.onRfq(decoder.rfq);
          return true;
        case MessageKind.QUOTE:
          if (!this.#isDead(decoder.quote.sid)) this.#listener.onQuote(decoder.quote);
          return true;
        case MessageKind.MARGIN_TICKER:
          if (!this.#isDead(decoder.marginTicker.sid)) this.#onMarginTicker(decoder.marginTicker);
          return true;
        case MessageKind.SUBSCRIBED:
          this.subscriptions.handleSubscribed(decoder.subscribed);
          return true;
        case MessageKind.UNSUBSCRIBED:
          this.subscriptions.handleUnsubscribed(decoder.unsubscribed);
          return true;
        case MessageKind.OK:
          this.#noteControlSeq(decoder.ok);
          this.subscriptions.handleOk(decoder.ok);
          return true;
        case MessageKind.ERROR:
          this.#onExchangeError(decoder.error);
          return true;
        case MessageKind.MALFORMED:
          this.counters.malformedFrames++;
          this.#logger.warn({ reason: decoder.rejectReason, frame: bytes.toString('utf8', start, Math.min(end, start + 256)) }, 'feed: malformed frame dropped');
          return true;
        case MessageKind.INVALID_UTF8:
          this.counters.malformedFrames++;
          this.#logger.warn({ reason: decoder.rejectReason, bytes: end - start }, 'feed: text frame is not UTF-8; failing the connection');
          return false;
        case MessageKind.UNKNOWN:
          this.counters.unknownTypes++;
          this.#logUnknownType(decoder.unknownType);
          return true;
      }
    } catch (error) {
      this.counters.listenerErrors++;
      this.#logger.error({ err: error }, 'feed: error while handling a frame (dropped)');
    }
    return true;
  }

  #isDead(sid: number): boolean {
    if (this.#deadSids.size !== 0 && this.#deadSids.has(sid)) {
      this.counters.droppedDeadSid++;
      return true;
    }
    return false;
  }

  /** The hot path: one delta into its book, then the listener. */
  #onDelta(delta: OrderbookDeltaRecord): void {
    if (this.#isDead(delta.sid)) return;
    // The store keeps NO levels at NO prices; use_yes_price sends them at YES prices.
    const price: Price = this.#useYesPrice && delta.side === 1 ? complementPrice(delta.price) : delta.price;
    // A known market's book comes by index from the interned ticker: no map lookup by string.
    const market = delta.marketIndex === -1 ? undefined : this.#markets[delta.marketIndex];
    const status =
      market === undefined
        ? this.books.applyDelta(delta.sid, delta.seq, delta.marketTicker, delta.side, price, delta.delta)
        : this.books.applyDeltaToBook(delta.sid, delta.seq, market.book, delta.side, price, delta.delta);
    if (this.hop.enabled) this.hop.appliedNs = nowNs();
    if (market !== undefined) market.lastMessageMs = this.#coarseNowMs;
    if (status === ApplyStatus.OK) {
      this.counters.deltasApplied++;
      if (market !== undefined) this.#listener.onBookUpdate(market.book);
      return;
    }
    this.counters.deltasRefused++;
    if (status === ApplyStatus.UNKNOWN_MARKET) this.counters.unknownMarkets++;
    // Breaks were reported through the store's onOutOfSync (gap, negative level, off grid, no snapshot).
  }

  #onSnapshot(snapshot: OrderbookSnapshotRecord): void {
    if (this.#isDead(snapshot.sid)) return;
    const book = this.books.beginSnapshot(snapshot.sid, snapshot.seq, snapshot.marketTicker);
    if (book === null) {
      if (this.books.get(snapshot.marketTicker) === undefined) this.counters.unknownMarkets++;
      return; // a gap was reported through onOutOfSync
    }
    const books = this.books;
    let ok = true;
    for (let i = 0; ok && i < snapshot.yesLevelCount; i++) {
      ok = books.snapshotLevel(book, 0, snapshot.yesPrice(i), snapshot.yesSize(i)) === ApplyStatus.OK;
    }
    const convert = this.#useYesPrice;
    for (let i = 0; ok && i < snapshot.noLevelCount; i++) {
      const price = convert ? complementPrice(snapshot.noPrice(i)) : snapshot.noPrice(i);
      ok = books.snapshotLevel(book, 1, price, snapshot.noSize(i)) === ApplyStatus.OK;
    }
    books.endSnapshot(book);
    if (this.hop.enabled) this.hop.appliedNs = nowNs();
    const market = snapshot.marketIndex === -1 ? undefined : this.#markets[snapshot.marketIndex];
    if (!book.synced || market === undefined) return; // a bad level broke it: reported, resync queued
    this.counters.snapshotsApplied++;
    market.lastMessageMs = this.#coarseNowMs;
    if (this.resync.onSynced(market)) this.#safely(() => this.#listener.onBookResynced(book));
    this.#listener.onBookUpdate(book);
  }

  /** An `ok` or `error` with sid and seq on a book stream takes a number from that sid's counter. */
  #noteControlSeq(record: ControlRecord): void {
    if (record.sid === -1 || record.seq === -1) return;
    const subscription = this.subscriptions.subscriptionOfSid(record.sid);
    if (subscription === undefined || subscription.channel !== Channel.ORDERBOOK) return;
    const last = this.books.seqLast(record.sid);
    // The spec only infers that replies consume a number: accept one that does (last + 1) and one
    // that does not (<= last); a jump past last + 1 is a real gap.
    if (last === -1 || record.seq > last) this.books.advanceSeq(record.sid, record.seq);
  }

  #onExchangeError(record: ControlRecord): void {
    this.counters.exchangeErrors++;
    this.#logger.warn({ id: record.id, sid: record.sid, code: record.code, msg: record.message }, 'feed: exchange error');
    this.#safely(() => this.#listener.onError(record.code, record.message));
    this.subscriptions.handleError(record);
  }

  #onMarketLifecycle(record: MarketLifecycleRecord): void {
    // The market's facts are written here, once, in the registry every hop reads.
    const market = this.market(record.marketTicker);
    if (market !== undefined) {
      const markets = this.markets;
      const index = market.index;
      const event = record.eventType;
      if (record.isDeactivated !== null) markets.setOpen(index, !record.isDeactivated);
      else if (event === 'activated') markets.setOpen(index, true);
      else if (event === 'deactivated' || event === 'determined' || event === 'settled') markets.setOpen(index, false);
      // A close time (created, close_date_updated; a venue closing a market early sends it as now):
      // the gate denies new orders from then on, so a closed market is never flooded with orders.
      if (record.closeTs >= 0) markets.setCloseMs(index, record.closeTs * 1000);
      if (event === 'price_level_structure_updated') this.#regrid(market, record);
    }
    this.#listener.onLifecycle(record);
  }

  /** The mark goes to the registry first (the gate reads it there), then to the listener. */
  #onMarginTicker(record: MarginTickerRecord): void {
    if (record.marketIndex !== -1 && record.markPrice !== PRICE_INVALID) this.markets.setMark(record.marketIndex, record.markPrice);
    this.#listener.onMarginTicker?.(record);
  }

  #regrid(market: MarketState, record: MarketLifecycleRecord): void {
    if (record.priceLevelStructure === null && record.priceRanges === null) return;
    if (market.book.perp) return; // a perpetual's tick is not a price_level_structure
    let grid: PriceGrid;
    try {
      const current = market.book.grid instanceof PriceGrid ? market.book.grid.structure : null;
      const structure = (record.priceLevelStructure ?? current ?? 'linear_cent') as PriceLevelStructure;
      grid = PriceGrid.forMarket(structure, record.priceRanges);
    } catch (error) {
      this.#logger.error({ err: error, ticker: market.ticker }, 'feed: cannot build the new price grid');
      this.#safely(() => this.#listener.onError(FeedErrorCode.GRID_INVALID, `${market.ticker}: ${(error as Error).message}`));
      return;
    }
    const status = this.books.regrid(market.ticker, grid); // OFF_GRID breaks the book: reported, resynced
    if (status !== ApplyStatus.OK) this.#logger.warn({ ticker: market.ticker, status: applyStatusName(status) }, 'feed: regrid lost levels');
    this.markets.regrid(market.index, grid); // the gate's ledger follows through the registry
  }

  #logUnknownType(type: string): void {
    if (this.#unknownTypesLogged.has(type) || this.#unknownTypesLogged.size >= UNKNOWN_TYPES_LOGGED_MAX) {
      this.#logger.debug({ type }, 'feed: unknown message type dropped');
      return;
    }
    this.#unknownTypesLogged.add(type);
    this.#logger.warn({ type }, 'feed: unknown message type dropped (logged once per type)');
  }

  // ---- book sync -----------------------------------------------------------------------------------

  /** BookStore's onOutOfSync: called synchronously, possibly in a loop over a sid's books. */
  #onBookOutOfSync(book: OrderBook, reason: number): void {
    this.counters.outOfSync++;
    this.#safely(() => this.#listener.onBookOutOfSync(book, reason));
    const market = this.market(book.ticker);
    if (market !== undefined) this.resync.onOutOfSync(market, reason);
  }

  // ---- session and subscription events -----------------------------------------------------------

  #onOpen(): void {
    this.#deadSids.clear(); // a new connection: sids start over
    this.subscriptions.onOpen();
  }

  #onClose(code: number, reason: string): void {
    this.counters.disconnects++;
    this.#logger.warn({ code, reason }, 'feed: disconnected; books will be rebuilt after reconnect');
    this.resync.onDisconnect();
    this.subscriptions.onClose(); // -> onLost for every sid -> books reset (RESYNC)
  }

  #onState(state: ConnectionState): void {
    this.#safely(() => this.#listener.onConnectionState(state));
  }

  #onSubscriptionActive(subscription: Subscription, sid: number): void {
    this.#logger.debug({ channel: subscription.channel, sid, markets: subscription.markets.size }, 'feed: subscribed');
  }

  #onSubscriptionLost(subscription: Subscription, sid: number, reason: LostReason): void {
    if (reason !== LostReason.RECONNECT) this.#deadSids.add(sid);
    if (subscription.channel === Channel.ORDERBOOK) this.books.resetSubscription(sid); // RESYNC, reported per book
    if (reason === LostReason.TERMINAL || reason === LostReason.UNKNOWN_SID) {
      this.counters.resubscribes++;
      this.#logger.warn({ channel: subscription.channel, sid, reason }, 'feed: subscription lost; resubscribing');
      this.#safely(() => this.#listener.onError(FeedErrorCode.SUBSCRIPTION_LOST, `${subscription.channel} sid ${sid} lost (${reason}); resubscribing`));
    }
  }

  #onCommandError(kind: CommandKind | null, subscription: Subscription | null, code: number, message: string): void {
    this.#logger.warn(
      { kind, channel: subscription?.channel, sid: subscription?.sid, code, message },
      kind === null ? 'feed: subscription error' : 'feed: command refused',
    );
    if (kind === 'subscribe' && subscription !== null && !TERMINAL_ERROR_CODES.includes(code) && !isTransientError(code)) {
      // The manager will not retry a client error: say so once, beside the raw exchange code.
      this.#safely(() => this.#listener.onError(FeedErrorCode.SUBSCRIBE_FAILED, `subscribe ${subscription.channel} refused: ${code} ${message}`));
    }
  }

  /** Listener calls from inside the store or the session: an exception must not cut their loops short. */
  #safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.counters.listenerErrors++;
      this.#logger.error({ err: error }, 'feed: listener threw (ignored)');
    }
  }
}
