/**
 * The Margin exchange's side of the FIX acceptor (fix.md §1 "Margin exchange"): one observer of the
 * margin engine (margin/margin-engine.ts observe()) serving every Margin session. It owns
 *  - which FIX session placed which margin order (reports go to the session that placed it, as on
 *    Predictions; orders placed over REST are not reported on FIX), and the ClOrdID -> order index
 *    a cancel or replace looks up;
 *  - the ExecutionReports of resting orders filled by someone else's order (the taker's own reports
 *    are written by its connection right after the engine call, margin-order-entry-connection.ts);
 *  - ExecIDs of the Margin exchange (its own sequence on exchange index 0: another venue);
 *  - the aggregated levels of every margin book with a KalshiMD subscriber, diffed after each engine
 *    event into level changes and trade entries (a MarketDataSource for market-data-connection.ts).
 * Records are the Predictions ExecutionReportRecord, so the same writer renders them (prices always
 * in dollars on Margin). Security status is not documented for Margin KalshiMD: subscriptions are
 * accepted and never sent anything.
 */

import { asCount, asPrice, FifoMap } from '../../../core/index.ts';
import { MarginBookLevels } from '../../margin/index.ts';
import type { MarginEngine, MarginFillRecord, MarginOrderRecord, MarginTradeRecord, MarketState } from '../../margin/index.ts';
import { ExecIdSource, newReport, type ExecutionReportRecord } from './execution-report.ts';
import type { MarketDataSink, MarketDataSource } from './market-data-hub.ts';

/** A Margin order-entry connection, as the hub delivers to it. */
export interface MarginReportSink {
  deliverMargin(record: ExecutionReportRecord): void;
}

/** Orders remembered for routing and ClOrdID lookup; the oldest are forgotten beyond this (a forgotten order gets no more FIX reports). */
const TRACKED_ORDERS_MAX = 100_000; // FifoMap allocates its ring up front: 3 maps x 2 x this many slots


export class MarginFixHub implements MarketDataSource {
  readonly engine: MarginEngine;
  readonly execIds: ExecIdSource;
  readonly #owners = new FifoMap<string, MarginReportSink>(TRACKED_ORDERS_MAX);
  readonly #byClOrdId = new FifoMap<string, string>(TRACKED_ORDERS_MAX); // `${userId}|${clOrdId}` -> orderId
  /** Sum of price x count of the fills of each tracked order (AvgPx). */
  readonly #cost = new FifoMap<string, number>(TRACKED_ORDERS_MAX);
  /** KalshiMD subscribers per market, and the levels those markets had at the last engine event. */
  readonly #subscribers = new Map<string, Set<MarketDataSink>>();
  readonly #levels: MarginBookLevels;

  constructor(engine: MarginEngine, now: () => number) {
    this.engine = engine;
    this.#levels = new MarginBookLevels(engine);
    this.execIds = new ExecIdSource(Math.floor(now() / 1000)); // the run's start second, like the Predictions clock
  }

  /** Starts observing the engine; returns the detach. */
  attach(): () => void {
    return this.engine.observe({ onOrder: (order) => this.#onOrder(order), onTrade: (market, trade) => this.#onTrade(market, trade) });
  }

  /** The session a margin order was placed on, undefined when not over FIX (or forgotten). */
  ownerOf(orderId: string): MarginReportSink | undefined {
    return this.#owners.get(orderId);
  }

  track(order: MarginOrderRecord, clOrdId: string, sink: MarginReportSink): void {
    this.#owners.set(order.orderId, sink);
    this.#byClOrdId.set(`${order.userId}|${clOrdId}`, order.orderId);
  }

  /** The order a ClOrdID (the current one or an earlier one of a replace chain) names, for its user. */
  orderByClOrdId(userId: string, clOrdId: string): MarginOrderRecord | null {
    const orderId = this.#byClOrdId.get(`${userId}|${clOrdId}`);
    return orderId === undefined ? null : this.engine.orders.get(orderId) ?? null;
  }

  /** Adds one fill to its order's cost and returns the order's AvgPx (price units). */
  noteFill(fill: MarginFillRecord, order: MarginOrderRecord): number {
    const cost = (this.#cost.get(order.orderId) ?? 0) + fill.price * (fill.count / 100);
    this.#cost.set(order.orderId, cost);
    return this.avgPxOf(order);
  }

  /** Sum of price x contracts of the fills noted so far for `orderId` (price units x contracts). */
  costOf(orderId: string): number {
    return this.#cost.get(orderId) ?? 0;
  }

  avgPxOf(order: MarginOrderRecord): number {
    const cost = this.#cost.get(order.orderId) ?? 0;
    return order.filled === 0 ? 0 : Math.round(cost / (order.filled / 100));
  }

  // ---- engine events ----

  #onOrder(order: MarginOrderRecord): void {
    this.#diff(order.ticker, order);
  }

  #onTrade(market: MarketState, trade: MarginTradeRecord): void {
    // The two fills of the trade were pushed just before it (engine #trade): maker, then taker.
    const fills = this.engine.fills;
    for (let i = Math.max(0, fills.length - 2); i < fills.length; i++) {
      const fill = fills[i];
      if (fill.tradeId !== trade.tradeId || fill.isTaker) continue;
      const sink = this.#owners.get(fill.orderId);
      const order = this.engine.orders.get(fill.orderId);
      if (sink === undefined || order === undefined) continue;
      sink.deliverMargin(this.tradeReport(order, fill, this.noteFill(fill, order)));
    }
    const subscribers = this.#subscribers.get(market.spec.ticker);
    if (subscribers === undefined) return;
    const entry = { price: asPrice(trade.price), count: asCount(trade.count), takerSide: trade.takerSide, isBlockTrade: false, tsMs: trade.createdMs };
    for (const sink of subscribers) sink.onTrade(market.spec.ticker, entry);
  }

  /** A Trade report (150=F) for `fill` of `order`, its state as it is now. */
  tradeReport(order: MarginOrderRecord, fill: MarginFillRecord, avgPx: number): ExecutionReportRecord {
    const record = this.orderReport(order, 'F', order.remaining === 0 ? '2' : '1', order.clientOrderId);
    record.lastPx = fill.price;
    record.lastQty = fill.count;
    record.avgPx = avgPx;
    record.feeCenticents = fill.fee;
    record.trdMatchId = fill.tradeId;
    record.aggressor = fill.isTaker;
    record.collateralChangeCenticents = fill.realizedPnl - fill.fee;
    const position = this.engine.account(order.userId, order.subaccount)?.positions.get(order.ticker)?.count ?? 0;
    record.longQty = Math.max(position, 0);
    record.shortQty = Math.max(-position, 0);
    record.transactTimeMs = fill.createdMs;
    return record;
  }

  /** A report of `order` as it stands, stamped with the next ExecID. */
  orderReport(order: MarginOrderRecord, execType: string, ordStatus: string, clOrdId: string): ExecutionReportRecord {
    const record = newReport();
    record.orderId = order.orderId;
    record.clOrdId = clOrdId;
    record.execType = execType;
    record.ordStatus = ordStatus;
    record.symbol = order.ticker;
    record.side = order.side === 'bid' ? '1' : '2';
    const leaves = order.status === 'resting' ? order.remaining : 0;
    record.orderQty = order.filled + leaves;
    record.originalQty = order.filled + order.remaining;
    record.price = order.price;
    record.cumQty = order.filled;
    record.leavesQty = leaves;
    record.avgPx = this.avgPxOf(order);
    record.transactTimeMs = order.lastUpdateMs; // fix.md §5: always on margin
    record.lastMkt = 0; // every margin market is on exchange index 0
    record.allocAccount = order.subaccount === 0 ? -1 : order.subaccount;
    record.userId = order.userId;
    this.execIds.stamp(record);
    return record;
  }

  // ---- market data (MarketDataSource) ----

  known(ticker: string): boolean {
    return this.engine.markets.has(ticker);
  }

  levels(ticker: string): { bids: Array<[number, number]>; offers: Array<[number, number]> } {
    const market = this.engine.markets.get(ticker);
    if (market === undefined) return { bids: [], offers: [] }; // fix.md §8: an unknown ticker gets an empty snapshot
    this.engine.advance();
    return { bids: market.book.depth('bid', 0), offers: market.book.depth('ask', 0) };
  }

  subscribeBook(sink: MarketDataSink, ticker: string): void {
    let subscribers = this.#subscribers.get(ticker);
    if (subscribers === undefined) {
      if (!this.#levels.watch(ticker)) return;
      this.#subscribers.set(ticker, (subscribers = new Set()));
    }
    subscribers.add(sink);
  }

  unsubscribeBook(sink: MarketDataSink, ticker: string): void {
    const subscribers = this.#subscribers.get(ticker);
    if (subscribers === undefined) return;
    subscribers.delete(sink);
    if (subscribers.size > 0) return;
    this.#subscribers.delete(ticker);
    this.#levels.unwatch(ticker);
  }

  subscribeStatus(): void {
    // Not documented for Margin KalshiMD (fix.md §8): accepted, never sent.
  }

  unsubscribeStatus(): void {}

  /** Sends each level of a subscribed book that the engine event changed. */
  #diff(ticker: string, cause: MarginOrderRecord): void {
    const subscribers = this.#subscribers.get(ticker);
    if (subscribers === undefined) return;
    const tsMs = this.engine.now();
    for (const change of this.#levels.diff(ticker)) {
      const entryType = change.side === 'bid' ? 0 : 1;
      for (const sink of subscribers) sink.onLevel(ticker, entryType, asPrice(change.price), asCount(change.size), asCount(change.previous), cause, tsMs);
    }
  }
}
