/**
 * The Margin exchange's side of the FIX acceptor (fix.md §1 "Margin exchange"): one observer of the
 * margin engine (margin/margin-engine.ts observe()) serving every Margin session. It owns
 *  - which FIX session placed which margin order, and the ClOrdID -> order index a cancel or
 *    replace looks up;
 *  - the live Margin order-entry sessions of each user, and the ExecutionReports of every change of
 *    a user's margin orders that the session's own request did not cause (the requester's reports
 *    are written by its connection right after the engine call, margin-order-entry-connection.ts):
 *    fills of resting orders, cancels and amends over REST, expiries, group triggers, and orders
 *    placed over REST or by the venue (liquidations, fired exit triggers). A FIX order's reports go
 *    to the session that placed it and the user's listener sessions, as the Predictions ReportHub
 *    does (report-hub.ts); an order placed elsewhere has no session, so its reports go to every live
 *    Margin order-entry session of its user (fix.md §2 20126: listeners get "the account's execution
 *    reports"; the non-listener sessions too is our reading, so REST and system activity is visible);
 *  - the Margin drop-copy log (KalshiDC on the Margin listeners replays it, drop-copy-connection.ts);
 *  - ExecIDs of the Margin exchange (its own sequence on exchange index 0: another venue);
 *  - the aggregated levels of every margin book with a KalshiMD subscriber, diffed after each engine
 *    event into level changes and trade entries (a MarketDataSource for market-data-connection.ts).
 * Records are the Predictions ExecutionReportRecord, so the same writer renders them (prices always
 * in dollars on Margin). Security status is not documented for Margin KalshiMD: subscriptions are
 * accepted and never sent anything.
 *
 * A session's own request runs inside beginCall()/endCall(): engine events about the request's
 * subject order are left to the session, other events become reports held until endCall(), so the
 * requester's answer comes first (as the Predictions hub replays captured events after the answer).
 */

import { asCount, asPrice, FifoMap } from '../../../core/index.ts';
import { MarginBookLevels } from '../../margin/index.ts';
import type { MarginEngine, MarginFillRecord, MarginOrderRecord, MarginTradeRecord, MarketState } from '../../margin/index.ts';
import { ExecIdSource, newReport, type ExecutionReportRecord } from './execution-report.ts';
import type { MarketDataSink, MarketDataSource } from './market-data-hub.ts';
import { cancelTextOf } from './reject-texts.ts';

/** A Margin order-entry connection, as the hub delivers to it. */
export interface MarginReportSink {
  readonly keyId: string;
  readonly userId: string;
  /** Listener sessions (20126=Y) receive every report of their user. */
  readonly listener: boolean;
  /** The key's subaccount lock: such a session sees that subaccount's orders only; null = none. */
  readonly subaccountLock: number | null;
  deliverMargin(record: ExecutionReportRecord): void;
}

/** Orders remembered for routing and ClOrdID lookup; the oldest are forgotten beyond this (a forgotten order gets no more FIX reports). */
const TRACKED_ORDERS_MAX = 100_000; // FifoMap allocates its ring up front: 4 maps x 2 x this many slots
/** Drop-copy records kept per user, and how far back (fix.md §3: 3 h), as the Predictions ReportHub. */
const DROP_COPY_RECORDS_MAX = 100_000;
const DROP_COPY_LOOKBACK_MS = 3 * 3_600_000;
/** Reports held during one session request (a request that liquidates or cancels a whole group); beyond it they go out at once. */
const HELD_REPORTS_MAX = 100_000;

export class MarginFixHub implements MarketDataSource {
  readonly engine: MarginEngine;
  readonly execIds: ExecIdSource;
  readonly #now: () => number;
  readonly #owners = new FifoMap<string, MarginReportSink>(TRACKED_ORDERS_MAX);
  readonly #byClOrdId = new FifoMap<string, string>(TRACKED_ORDERS_MAX); // `${userId}|${clOrdId}` -> orderId
  /** Sum of price x count of the fills of each reported order (AvgPx). */
  readonly #cost = new FifoMap<string, number>(TRACKED_ORDERS_MAX);
  /** The ClOrdID each order was last reported under (OrigClOrdID of a Replaced after an amend elsewhere). */
  readonly #lastClOrdId = new FifoMap<string, string>(TRACKED_ORDERS_MAX);
  /** Live Margin order-entry sessions per user. */
  readonly #sessions = new Map<string, Set<MarginReportSink>>();
  /** Users that ever logged on a Margin order-entry session: only their orders are reported and kept for drop copy. */
  readonly #fixUsers = new Set<string>();
  readonly #dropCopy = new Map<string, ExecutionReportRecord[]>();
  readonly #evicted = new Map<string, number>(); // userId -> highest evicted execSeq (index 0 only on Margin)
  /** The order the current session request is about (its session reports it); null outside a call. */
  #subject: ((order: MarginOrderRecord) => boolean) | null = null;
  /** Text(58) for orders the current call cancels with the engine's plain MarginCancel (a group's cancels). */
  #callCancelText = '';
  /** Reports raised during a call, sent at endCall(); null outside a call. */
  #held: Array<{ record: ExecutionReportRecord; order: MarginOrderRecord }> | null = null;
  /** KalshiMD subscribers per market, and the levels those markets had at the last engine event. */
  readonly #subscribers = new Map<string, Set<MarketDataSink>>();
  readonly #levels: MarginBookLevels;

  constructor(engine: MarginEngine, now: () => number) {
    this.engine = engine;
    this.#now = now;
    this.#levels = new MarginBookLevels(engine);
    this.execIds = new ExecIdSource(Math.floor(now() / 1000)); // the run's start second, like the Predictions clock
  }

  /** Starts observing the engine; returns the detach. */
  attach(): () => void {
    return this.engine.observe({ onOrder: (order) => this.#onOrder(order), onTrade: (market, trade) => this.#onTrade(market, trade) });
  }

  // ---- sessions ----

  register(sink: MarginReportSink): void {
    let sinks = this.#sessions.get(sink.userId);
    if (sinks === undefined) this.#sessions.set(sink.userId, (sinks = new Set()));
    sinks.add(sink);
    this.#fixUsers.add(sink.userId);
  }

  /** True while any Margin order-entry session is live (the acceptor's tick advances the engine then). */
  hasSessions(): boolean {
    return this.#sessions.size > 0;
  }

  unregister(sink: MarginReportSink): void {
    const sinks = this.#sessions.get(sink.userId);
    if (sinks === undefined) return;
    sinks.delete(sink);
    if (sinks.size === 0) this.#sessions.delete(sink.userId);
  }

  // ---- orders ----

  /** The session a margin order was placed on, undefined when not over FIX (or forgotten). */
  ownerOf(orderId: string): MarginReportSink | undefined {
    return this.#owners.get(orderId);
  }

  track(order: MarginOrderRecord, clOrdId: string, sink: MarginReportSink): void {
    this.#owners.set(order.orderId, sink);
    this.#byClOrdId.set(`${order.userId}|${clOrdId}`, order.orderId);
    this.#lastClOrdId.set(order.orderId, clOrdId);
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

  // ---- calls made by a session ----

  /**
   * Starts a session request about the order `subject` names; other engine events are held.
   * `cancelText`: Text(58) of the orders it cancels (a group trigger or delete: ORDER_GROUP_CANCEL).
   */
  beginCall(subject: (order: MarginOrderRecord) => boolean, cancelText = ''): void {
    this.#subject = subject;
    this.#callCancelText = cancelText;
    this.#held = [];
  }

  /** Ends the request: the held reports go out, in engine order. */
  endCall(): void {
    const held = this.#held ?? [];
    this.#subject = null;
    this.#callCancelText = '';
    this.#held = null;
    for (const { record, order } of held) this.#route(record, order);
  }

  /**
   * Stamps an ExecID on `record`, keeps it for drop copy and sends it to `owner` (the session a
   * request came from) and the user's listener sessions.
   */
  emit(record: ExecutionReportRecord, owner: MarginReportSink, subaccount: number): void {
    this.execIds.stamp(record);
    this.#keepForDropCopy(record);
    owner.deliverMargin(record);
    for (const sink of this.#sessions.get(record.userId) ?? []) {
      if (sink !== owner && sink.listener && visible(sink, subaccount)) sink.deliverMargin(record);
    }
  }

  // ---- records ----

  /** A Trade report (150=F) for `fill` of `order`, its state as it is now (not yet stamped). */
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

  /** A report of `order` as it stands (not yet stamped: emit() stamps). */
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
    if (order.reason !== null) record.text = systemText(order, ''); // a venue order says why (fix.md is silent; ours)
    this.#lastClOrdId.set(order.orderId, clOrdId);
    return record;
  }

  // ---- drop copy (drop-copy-connection.ts) ----

  /** Drop-copy replay: the user's stamped records on `index` with execSeq in [first, last]. */
  dropCopyRange(userId: string, index: number, first: number, last: number): ExecutionReportRecord[] {
    const log = this.#dropCopy.get(userId) ?? [];
    return log.filter((record) => record.exchangeIndex === index && record.execSeq >= first && record.execSeq <= last);
  }

  /** The highest event number the user's drop-copy log has dropped (0 when none). */
  dropCopyEvictedThrough(userId: string, index: number): number {
    const log = this.#dropCopy.get(userId);
    if (log !== undefined) {
      const oldest = this.#now() - DROP_COPY_LOOKBACK_MS;
      let drop = 0;
      while (drop < log.length && log[drop].transactTimeMs < oldest) drop++;
      if (drop > 0) this.#evict(log, drop);
    }
    return index === 0 ? this.#evicted.get(userId) ?? 0 : 0;
  }

  #keepForDropCopy(record: ExecutionReportRecord): void {
    let log = this.#dropCopy.get(record.userId);
    if (log === undefined) this.#dropCopy.set(record.userId, (log = []));
    log.push(record);
    if (log.length > DROP_COPY_RECORDS_MAX) this.#evict(log, log.length - DROP_COPY_RECORDS_MAX);
  }

  #evict(log: ExecutionReportRecord[], count: number): void {
    for (let i = 0; i < count; i++) {
      const record = log[i];
      if ((this.#evicted.get(record.userId) ?? 0) < record.execSeq) this.#evicted.set(record.userId, record.execSeq);
    }
    log.splice(0, count);
  }

  // ---- engine events ----

  #onOrder(order: MarginOrderRecord): void {
    this.#diff(order.ticker, order);
    if (this.#subject?.(order) === true) return; // the requesting session reports its own order
    if (!this.#fixUsers.has(order.userId)) return; // nobody on FIX to tell, now or by drop copy
    const record = this.#changeReport(order);
    if (record !== null) this.#raise(record, order);
  }

  /** The report of an order event nobody asked for on FIX; null when a Trade report covers it. */
  #changeReport(order: MarginOrderRecord): ExecutionReportRecord | null {
    const reason = order.lastUpdateReason;
    if (order.status === 'executed' || (order.status === 'resting' && reason === 'Trade')) return null; // the fill's Trade report says it
    if (order.status === 'canceled') {
      const record = this.orderReport(order, '4', '4', order.clientOrderId);
      const plain = order.lastUpdateReason === 'MarginCancel' && order.timeInForce === 'good_till_canceled';
      record.text = systemText(order, plain && this.#callCancelText !== '' ? this.#callCancelText : canceledText(order));
      return record;
    }
    const ordStatus = order.filled > 0 ? '1' : '0';
    if (reason === '') return this.orderReport(order, '0', ordStatus, order.clientOrderId); // placed over REST (or by the venue)
    // Amended or decreased elsewhere (REST): Replaced, as fix.md §5 reports a 35=G (59=6 with 126, or 59=1).
    const previous = this.#lastClOrdId.get(order.orderId) ?? order.clientOrderId;
    const record = this.orderReport(order, '5', ordStatus, order.clientOrderId);
    if (previous !== order.clientOrderId) record.origClOrdId = previous;
    record.timeInForce = order.expirationTs === null ? '1' : '6';
    record.expireTimeMs = order.expirationTs === null ? 0 : order.expirationTs * 1000;
    return record;
  }

  #onTrade(market: MarketState, trade: MarginTradeRecord): void {
    // The two fills of the trade were pushed just before it (engine #trade): maker, then taker.
    const fills = this.engine.fills;
    for (let i = Math.max(0, fills.length - 2); i < fills.length; i++) {
      const fill = fills[i];
      if (fill.tradeId !== trade.tradeId) continue;
      const order = this.engine.orders.get(fill.orderId);
      if (order === undefined || this.#subject?.(order) === true) continue;
      if (!this.#fixUsers.has(order.userId)) continue; // nobody on FIX to tell, now or by drop copy
      this.#raise(this.tradeReport(order, fill, this.noteFill(fill, order)), order);
    }
    const subscribers = this.#subscribers.get(market.spec.ticker);
    if (subscribers === undefined) return;
    const entry = { price: asPrice(trade.price), count: asCount(trade.count), takerSide: trade.takerSide, isBlockTrade: false, tsMs: trade.createdMs };
    for (const sink of subscribers) sink.onTrade(market.spec.ticker, entry);
  }

  /** An unsolicited report: held while a session request runs, else sent at once. */
  #raise(record: ExecutionReportRecord, order: MarginOrderRecord): void {
    const held = this.#held;
    if (held !== null && held.length < HELD_REPORTS_MAX) held.push({ record, order });
    else this.#route(record, order);
  }

  /** Stamps, keeps and sends an unsolicited report: to the order's FIX session, else every session of the user. */
  #route(record: ExecutionReportRecord, order: MarginOrderRecord): void {
    this.execIds.stamp(record);
    this.#keepForDropCopy(record);
    const owner = this.#owners.get(order.orderId);
    if (owner !== undefined) owner.deliverMargin(record); // a closed session ignores it
    for (const sink of this.#sessions.get(order.userId) ?? []) {
      if (sink === owner || !visible(sink, order.subaccount)) continue;
      if (owner === undefined || sink.listener) sink.deliverMargin(record);
    }
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

/** A session of a subaccount-restricted key sees its subaccount only. */
function visible(sink: MarginReportSink, subaccount: number): boolean {
  return sink.subaccountLock === null || sink.subaccountLock === subaccount;
}

/** Text(58) of a Canceled report of an order ended by something other than its own FIX request. */
function canceledText(order: MarginOrderRecord): string {
  const reason = order.lastUpdateReason;
  if (order.timeInForce !== 'good_till_canceled' && (reason === 'MarginCancel' || reason === 'Trade')) {
    return order.timeInForce === 'fill_or_kill' ? cancelTextOf('FillOrKillCancel') : cancelTextOf('ImmediateOrCancel'); // the rest of an IOC
  }
  if (reason === 'SelfTradeCancel') return 'MAKER_CANCEL_FOR_SELF_TRADE_PREVENTION'; // as the Predictions hub's resting orders
  return cancelTextOf(reason); // ExpiryCancel: EXPIRED (39=C with 21012=Y)
}

/**
 * Text(58) of a venue order (order_source system): fix.md has no field for order_reason, so the
 * REST value rides in Text, after any cancel text ("IMMEDIATE_OR_CANCELLED; order_reason=liquidation").
 */
export function systemText(order: MarginOrderRecord, text: string): string {
  if (order.reason === null) return text;
  const reason = `order_reason=${order.reason}`;
  return text === '' ? reason : `${text}; ${reason}`;
}
