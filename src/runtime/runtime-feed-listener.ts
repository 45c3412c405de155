/**
 * Routes what the feed decodes: book changes to the strategy host (timed by the tick-to-trade
 * probe), private order/fill/position messages to the OMS (which tells the gate and, for order
 * changes, the owning strategy) and fills then to the owning strategy, order-group updates to the
 * gate; trades and book-top changes, after the strategies, to the live candles' batch (a typed-array
 * row, no waiting); lifecycle to the strategies (the feed has written the market's facts in the registry the
 * gate reads); connection changes to logs and, after a reconnect, to a reconciliation. Runs on the
 * hot path synchronously; logs only on errors and connection changes. A quote's execution makes
 * venue orders the OMS never placed: their fills go to the quoting strategy, those that arrive
 * before the execution message names the order held (bounded) until it does.
 * Wiring only: it decides nothing beyond which component hears which message.
 */

import type { OrderBook } from '../book/index.ts';
import type {
  ConnectionState,
  FeedErrorCode,
  FeedListener,
  FillRecord,
  LifecycleRecord,
  MarketPositionRecord,
  OrderGroupUpdateRecord,
  QuoteMessageRecord,
  RfqRecord,
  TradeRecord,
  UserOrderRecord,
} from '../feed/index.ts';
import { FifoMap } from '../core/index.ts';
import type { Oms, QuoteBook, QuoteMessageInput, RfqInput } from '../oms/index.ts';
import type { RiskGate } from '../risk/index.ts';
import type { FillView, StrategyHost } from '../strategy/index.ts';
import type { Logger } from '../telemetry/index.ts';
import type { CandleFeed } from '../workers/index.ts';
import type { FrameStamps, TickToTradeProbe } from './tick-to-trade-probe.ts';

/** Bound on back-to-back reconciliation rounds after a reconnect (each is one listOrders per market). */
const RECONCILE_ROUNDS_MAX = 5;
/** Orders with fills and no owner yet (a quote execution not yet announced), and executions remembered. */
const UNOWNED_ORDERS_MAX = 256;
const UNOWNED_FILLS_PER_ORDER_MAX = 64;
const EXECUTIONS_REMEMBERED_MAX = 10_000;

export class RuntimeFeedStats {
  /** Fill messages received (duplicates included; the OMS counts those). */
  fillMessages = 0;
  /** RFQs created, handed to the quote book and the strategies (quoting on). */
  rfqsSeen = 0;
  feedErrors = 0;
  connects = 0;
  disconnects = 0;
}

export class RuntimeFeedListener implements FeedListener {
  readonly stats = new RuntimeFeedStats();
  readonly #hop: FrameStamps;
  readonly #oms: Oms;
  readonly #gate: RiskGate;
  readonly #probe: TickToTradeProbe;
  readonly #log: Logger;
  #host: StrategyHost | null = null;
  #candles: CandleFeed | null = null;
  #quotes: QuoteBook | null = null;
  /** Fills of orders no strategy owns yet, by order id (copies: the decoder reuses its record). */
  readonly #unowned = new FifoMap<string, FillView[]>(UNOWNED_ORDERS_MAX);
  /** Quote executions: venue order id -> the quoting strategy. */
  readonly #executions = new FifoMap<string, number>(EXECUTIONS_REMEMBERED_MAX);
  #everOpen = false;
  #reconciling = false;
  #reconcileAgain = false;

  constructor(hop: FrameStamps, oms: Oms, gate: RiskGate, probe: TickToTradeProbe, log: Logger) {
    this.#hop = hop;
    this.#oms = oms;
    this.#gate = gate;
    this.#probe = probe;
    this.#log = log;
  }

  setHost(host: StrategyHost | null): void {
    this.#host = host;
  }

  setCandles(candles: CandleFeed | null): void {
    this.#candles = candles;
  }

  /** The quote book (config rfq.enabled); null: communications messages are ignored. */
  setQuotes(quotes: QuoteBook | null): void {
    this.#quotes = quotes;
  }

  onBookUpdate(book: OrderBook): void {
    const host = this.#host;
    if (host !== null) {
      this.#probe.beginFrame(this.#hop);
      host.onBookUpdate(book);
      this.#probe.endFrame();
    }
    // After the strategies (and outside tick-to-trade): a row only when the top moved.
    this.#candles?.onTop(book.ticker, book.bestBid(), book.bestAsk());
  }

  onBookOutOfSync(book: OrderBook, _reason: number): void {
    this.#host?.onBookOutOfSync(book);
  }

  onBookResynced(book: OrderBook): void {
    this.#host?.onBookResynced(book);
  }

  onTrade(record: TradeRecord): void {
    this.#host?.onTrade(record);
    this.#candles?.onTrade(record.marketTicker, record.yesPrice, record.count, record.tsMs);
  }

  onFill(record: FillRecord): void {
    this.stats.fillMessages++;
    const oms = this.#oms;
    const duplicatesBefore = oms.stats.duplicateFills;
    oms.onFill(record);
    if (oms.stats.duplicateFills !== duplicatesBefore) return; // already applied and reported
    const host = this.#host;
    if (host === null) return;
    const order = (record.orderId !== '' ? oms.orderByOrderId(record.orderId) : undefined) ?? (record.clientOrderId !== '' ? oms.order(record.clientOrderId) : undefined);
    if (order !== undefined || this.#quotes === null || record.orderId === '') {
      host.onFill(record, order === undefined ? -1 : order.strategyId);
      return;
    }
    const quoter = this.#executions.get(record.orderId);
    if (quoter !== undefined) return host.onFill(record, quoter);
    // Possibly a quote execution announced after its fills: held until the message names the order.
    let held = this.#unowned.get(record.orderId);
    if (held === undefined) this.#unowned.set(record.orderId, (held = []));
    if (held.length < UNOWNED_FILLS_PER_ORDER_MAX) held.push({ ...record });
  }

  onUserOrder(record: UserOrderRecord): void {
    this.#oms.onUserOrder(record);
  }

  onMarketPosition(record: MarketPositionRecord): void {
    this.#oms.onMarketPosition(record);
  }

  onOrderGroupUpdate(record: OrderGroupUpdateRecord): void {
    this.#gate.applyOrderGroupUpdate(record);
  }

  onLifecycle(record: LifecycleRecord): void {
    this.#host?.onLifecycle(record);
  }

  /** RFQs to the quote book (what a quote may answer), then to the strategies trading the market. */
  onRfq(record: RfqRecord | RfqInput): void {
    const quotes = this.#quotes;
    if (quotes === null) return;
    const rfq = quotes.onRfq(record);
    if (record.eventType === 'created') {
      this.stats.rfqsSeen++;
      if (rfq !== null) this.#host?.onRfq(rfq, false);
    } else {
      this.#host?.onRfq(rfq ?? record, true);
    }
  }

  /** Quote messages to the quote book, which tells the owning strategy; an execution also hands it the fills held for its order. */
  onQuote(record: QuoteMessageRecord | QuoteMessageInput): void {
    const quote = this.#quotes?.onQuoteMessage(record) ?? null;
    if (quote === null || record.eventType !== 'executed' || record.orderId === '') return;
    this.#executions.set(record.orderId, quote.strategyId);
    const held = this.#unowned.get(record.orderId);
    if (held === undefined) return;
    this.#unowned.delete(record.orderId);
    for (const fill of held) this.#host?.onFill(fill, quote.strategyId);
  }

  onError(code: number | FeedErrorCode, message: string): void {
    this.stats.feedErrors++;
    this.#log.warn({ code, message }, 'feed error');
    // A lost subscription (error 25 and other terminal errors) may have been a private channel:
    // order and fill messages are gone for good, so ask the venue.
    if (code === 'FEED_SUBSCRIPTION_LOST' || code === 25) this.#reconcile('subscription lost');
  }

  #reconcile(why: string): void {
    if (this.#reconciling) {
      this.#reconcileAgain = true;
      return;
    }
    this.#reconciling = true;
    void this.#reconcileOrdersThenPositions(why)
      .catch((error: unknown) => this.#log.warn({ err: error, why }, 'reconcile failed'))
      .finally(() => {
        this.#reconciling = false;
        if (this.#reconcileAgain) {
          this.#reconcileAgain = false;
          this.#reconcile(why);
        }
      });
  }

  /**
   * Every live order is asked about, not only those already in doubt: any of them may have filled
   * or been cancelled while its messages were lost. Positions are read only after the orders'
   * fills are in, because a venue position that already includes a fill, adopted before that
   * fill is booked, would count it twice.
   */
  async #reconcileOrdersThenPositions(why: string): Promise<void> {
    const oms = this.#oms;
    for (const order of oms.liveOrders()) oms.requestReconcile(order.clientOrderId);
    for (let round = 0; round < RECONCILE_ROUNDS_MAX; round++) {
      await oms.reconcile();
      if (!oms.liveOrders().some((order) => order.needsReconcile)) break;
    }
    await oms.reconcilePositions();
    const quotes = this.#quotes;
    if (quotes !== null) {
      const changed = await quotes.reconcile();
      if (changed > 0) this.#log.info({ why, changed }, 'quotes reconciled with the venue');
    }
    this.#log.info({ why }, 'reconciled orders and positions with the venue');
  }

  onConnectionState(state: ConnectionState): void {
    this.#log.info({ state }, 'feed connection');
    if (state === 'open') {
      this.stats.connects++;
      // Messages may have been missed while disconnected: ask the venue.
      if (this.#everOpen) this.#reconcile('reconnect');
      this.#everOpen = true;
    } else if (state === 'reconnecting') {
      this.stats.disconnects++;
    }
  }
}
