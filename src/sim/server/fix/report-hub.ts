/**
 * Where the simulator's execution reports come from and go to. The hub listens to the engine
 * (fills and order updates), knows which orders were placed over FIX and by which API key, and
 * delivers each report to that key's live order-entry session, to the key's retransmission store
 * when the key's last session was KalshiRT and it is offline (so a reconnect can resend it, fix.md
 * §3), to the listener sessions of the same user, and to the user's drop-copy log (KalshiDC replays,
 * 3 h lookback). It never parses FIX and never trades; sessions call the engine and use the hub to
 * turn outcomes into reports.
 *
 * A session's own request runs inside beginCall()/endCall(): engine events raised meanwhile are
 * snapshotted and handed back, so the session can answer in the venue's order (New folded into the
 * first Trade, Replaced before the fills an amend causes, the mass-cancel report before its
 * cancels). Events outside a call (a counterparty trading against a resting FIX order, an expiry,
 * a group trigger) become unsolicited reports at once.
 */

import { FifoMap } from '../../../core/index.ts';
import type { BookSide } from '../../../core/index.ts';
import type { Fill, Order, SimEngine } from '../../engine/index.ts';
import { cancelTextOf } from './reject-texts.ts';
import { ExecIdSource, newReport, type ExecutionReportRecord } from './execution-report.ts';

/** A live order-entry connection that receives reports. */
export interface ReportSink {
  readonly keyId: string;
  readonly userId: string;
  /** Listener sessions (20126=Y) receive every report of their user. */
  readonly listener: boolean;
  deliver(record: ExecutionReportRecord): void;
}

/** What the hub remembers about an order placed over FIX. */
export interface OwnedOrder {
  orderId: string;
  keyId: string;
  userId: string;
  clOrdId: string;
  symbol: string;
  side: '1' | '2';
  price: number;
  originalQty: number;
  /** Sum of fill price x count, for AvgPx. */
  cumNotional: number;
  /** AllocAccount to echo (the request carried 79, or the order is on a subaccount); -1 = none. */
  allocAccount: number;
  exchangeIndex: number;
  /** TimeInForce and ExpireTime for Replaced reports (fix.md §5: 59=6 with 126, or 59=1). */
  expireTimeMs: number;
}

/** An engine event, copied (engine records are live). */
export interface OrderSnapshot {
  fill: boolean;
  orderId: string;
  userId: string;
  clientOrderId: string;
  ticker: string;
  side: BookSide;
  price: number;
  fillCount: number;
  remainingCount: number;
  status: string;
  reason: string;
  exchangeIndex: number;
  subaccount: number;
  tsMs: number;
  // fills only
  fillId: string;
  fillPrice: number;
  fillQty: number;
  isTaker: boolean;
  fee: number;
  postPosition: number;
}

export interface ReportHubOptions {
  engine: SimEngine;
  now: () => number;
  /** Drop-copy records kept per user (default 100,000) and how far back (default 3 h, fix.md §3). */
  dropCopyRecordsMax?: number;
  dropCopyLookbackMs?: number;
  /** Orders remembered after they end, for "too late to cancel" answers (default 10,000). */
  finishedOrdersMax?: number;
  /** Called for a report whose key has no live session; true when it was kept for resend (RT). */
  offline?: (keyId: string, record: ExecutionReportRecord) => boolean;
}

const PRICE_ONE = 10_000;

export class ReportHub {
  readonly execIds: ExecIdSource;
  readonly #engine: SimEngine;
  readonly #now: () => number;
  readonly #owned = new Map<string, OwnedOrder>();
  readonly #byClOrdId = new Map<string, string>(); // userId SOH clOrdId -> orderId (live orders)
  readonly #finished: FifoMap<string, string>; // orderId -> final status, bounded
  readonly #sinks = new Map<string, ReportSink>();
  readonly #listeners = new Set<ReportSink>();
  readonly #dropCopy = new Map<string, ExecutionReportRecord[]>();
  readonly #evicted = new Map<string, number>(); // userId SOH index -> highest evicted execSeq
  readonly #dropCopyMax: number;
  readonly #dropCopyLookbackMs: number;
  readonly #offline: (keyId: string, record: ExecutionReportRecord) => boolean;
  #callUser: string | null = null;
  #captured: OrderSnapshot[] = [];

  constructor(options: ReportHubOptions) {
    this.#engine = options.engine;
    this.#now = options.now;
    this.#dropCopyMax = options.dropCopyRecordsMax ?? 100_000;
    this.#dropCopyLookbackMs = options.dropCopyLookbackMs ?? 3 * 3_600_000;
    this.#finished = new FifoMap(options.finishedOrdersMax ?? 10_000);
    this.#offline = options.offline ?? (() => false);
    // The clock part of ExecID: the run's start second, so IDs of two runs never collide.
    this.execIds = new ExecIdSource(Math.floor(options.now() / 1000) % 1_000_000);
  }

  /** Subscribes to the engine; returns the unsubscribe function. */
  attach(): () => void {
    return this.#engine.subscribe({
      onFill: (userId: string, fill: Fill, order: Order) => this.#onEngineEvent(userId, order, fill),
      onUserOrder: (userId: string, order: Order) => this.#onEngineEvent(userId, order, null),
    });
  }

  // ---- sessions ----

  register(sink: ReportSink): void {
    if (sink.listener) this.#listeners.add(sink);
    else this.#sinks.set(sink.keyId, sink);
  }

  unregister(sink: ReportSink): void {
    if (sink.listener) this.#listeners.delete(sink);
    else if (this.#sinks.get(sink.keyId) === sink) this.#sinks.delete(sink.keyId);
  }

  // ---- orders ----

  owned(orderId: string): OwnedOrder | undefined {
    return this.#owned.get(orderId);
  }

  /** The live FIX order of `userId` whose current ClOrdID is `clOrdId`. */
  orderIdOf(userId: string, clOrdId: string): string | undefined {
    return this.#byClOrdId.get(`${userId}\x01${clOrdId}`);
  }

  /** Final status of a recently ended order ('executed' | 'canceled'), undefined when unknown. */
  finishedStatus(orderId: string): string | undefined {
    return this.#finished.get(orderId);
  }

  /** Orders placed by `keyId` that still rest (cancel on disconnect). */
  restingOf(keyId: string): string[] {
    const out: string[] = [];
    for (const owned of this.#owned.values()) if (owned.keyId === keyId) out.push(owned.orderId);
    return out;
  }

  /** Records that `order` was placed over FIX by `keyId` with `clOrdId`. */
  own(order: Order, keyId: string, clOrdId: string, allocAccount: number, expireTimeMs: number): OwnedOrder {
    const owned: OwnedOrder = {
      orderId: order.orderId, keyId, userId: order.userId, clOrdId, symbol: order.ticker, side: order.side === 'bid' ? '1' : '2',
      price: order.price, originalQty: order.initialCount, cumNotional: 0, allocAccount, exchangeIndex: order.exchangeIndex, expireTimeMs,
    };
    this.#owned.set(order.orderId, owned);
    this.#byClOrdId.set(`${order.userId}\x01${clOrdId}`, order.orderId);
    return owned;
  }

  /** The order's ClOrdID changed (a replace). */
  rename(owned: OwnedOrder, clOrdId: string): void {
    this.#byClOrdId.delete(`${owned.userId}\x01${owned.clOrdId}`);
    owned.clOrdId = clOrdId;
    this.#byClOrdId.set(`${owned.userId}\x01${clOrdId}`, owned.orderId);
  }

  /** Forgets a finished order (after its last report). */
  release(owned: OwnedOrder, status: string): void {
    this.#owned.delete(owned.orderId);
    this.#byClOrdId.delete(`${owned.userId}\x01${owned.clOrdId}`);
    this.#finished.set(owned.orderId, status);
  }

  // ---- calls made by a session ----

  /** Starts capturing engine events (for `userId`'s orders and every FIX order). */
  beginCall(userId: string): void {
    this.#callUser = userId;
    this.#captured = [];
  }

  /** Stops capturing and returns what was captured, in engine order. */
  endCall(): OrderSnapshot[] {
    this.#callUser = null;
    const captured = this.#captured;
    this.#captured = [];
    return captured;
  }

  /** Turns captured events that are not about `subjectOrderId` into unsolicited reports. */
  replayUnsolicited(events: readonly OrderSnapshot[], subjectOrderId: string): void {
    for (const event of events) if (event.orderId !== subjectOrderId) this.#unsolicited(event);
  }

  // ---- records ----

  /** A report about `owned` with its identity, quantities and times filled in (not yet stamped). */
  base(owned: OwnedOrder, execType: string, ordStatus: string, cumQty: number, leavesQty: number, tsMs: number): ExecutionReportRecord {
    const record = newReport();
    record.orderId = owned.orderId;
    record.clOrdId = owned.clOrdId;
    record.execType = execType;
    record.ordStatus = ordStatus;
    record.symbol = owned.symbol;
    record.side = owned.side;
    record.price = owned.price;
    record.originalQty = owned.originalQty;
    record.cumQty = cumQty;
    record.leavesQty = leavesQty;
    record.orderQty = cumQty + leavesQty;
    record.avgPx = cumQty > 0 ? Math.round(owned.cumNotional / cumQty) : 0;
    record.transactTimeMs = tsMs;
    record.lastMkt = owned.exchangeIndex;
    record.allocAccount = owned.allocAccount;
    record.userId = owned.userId;
    record.exchangeIndex = owned.exchangeIndex;
    return record;
  }

  /** A Trade report (150=F) for a fill snapshot of `owned`. */
  trade(owned: OwnedOrder, event: OrderSnapshot): ExecutionReportRecord {
    owned.cumNotional += event.fillPrice * event.fillQty;
    const status = event.remainingCount === 0 ? (event.status === 'canceled' ? '4' : '2') : '1';
    const record = this.base(owned, 'F', status, event.fillCount, event.remainingCount, event.tsMs);
    record.lastPx = event.fillPrice;
    record.lastQty = event.fillQty;
    record.trdMatchId = event.fillId;
    record.aggressor = event.isTaker;
    record.feeCenticents = event.fee;
    record.longQty = event.postPosition > 0 ? event.postPosition : 0;
    record.shortQty = event.postPosition < 0 ? -event.postPosition : 0;
    // Collateral (fix.md §5, sign and composition not documented, §12 item 11; ours): the fill's
    // cost of its own side plus the fee leaves the balance; contracts that net against an opposite
    // position free $1 each (SingleMarketCollateralReturn), part of the same BALANCE change.
    const signed = event.side === 'bid' ? event.fillQty : -event.fillQty;
    const before = event.postPosition - signed;
    const netted = signed > 0 ? (before < 0 ? Math.min(event.fillQty, -before) : 0) : (before > 0 ? Math.min(event.fillQty, before) : 0);
    const sidePrice = event.side === 'bid' ? event.fillPrice : PRICE_ONE - event.fillPrice;
    const cost = Math.ceil((sidePrice * event.fillQty) / 100);
    const returned = (PRICE_ONE * netted) / 100;
    record.singleMarketReturnCenticents = returned;
    record.collateralChangeCenticents = returned - cost - event.fee;
    return record;
  }

  /** A Canceled report (150=4) for an order that ended with `reason`. */
  canceled(owned: OwnedOrder, event: OrderSnapshot, text: string): ExecutionReportRecord {
    const record = this.base(owned, '4', '4', event.fillCount, 0, event.tsMs);
    record.text = text;
    return record;
  }

  /** Stamps an ExecID and sends `record` to its owner, listeners and the drop-copy log. */
  emit(record: ExecutionReportRecord, keyId: string): void {
    this.execIds.stamp(record);
    this.#keepForDropCopy(record);
    this.deliverOnly(record, keyId);
    for (const listener of this.#listeners) if (listener.userId === record.userId) listener.deliver(record);
  }

  /** Stamps and keeps `record` for drop copy without sending it (an answer a fault swallowed). */
  keep(record: ExecutionReportRecord): void {
    this.execIds.stamp(record);
    this.#keepForDropCopy(record);
  }

  /** Sends `record` to `keyId`'s session only (pending reports and rejects: not replayed, no listeners). */
  deliverOnly(record: ExecutionReportRecord, keyId: string): void {
    const sink = this.#sinks.get(keyId);
    if (sink !== undefined) sink.deliver(record);
    else this.#offline(keyId, record);
  }

  /** Drop-copy replay: the user's stamped records on `index` with execSeq in [first, last]. */
  dropCopyRange(userId: string, index: number, first: number, last: number): ExecutionReportRecord[] {
    const log = this.#dropCopy.get(userId) ?? [];
    return log.filter((record) => record.exchangeIndex === index && record.execSeq >= first && record.execSeq <= last);
  }

  /** The highest event number on `index` the user's drop-copy log has dropped (0 when none): older requests are "too old". */
  dropCopyEvictedThrough(userId: string, index: number): number {
    this.#trimDropCopy(userId);
    return this.#evicted.get(`${userId}\x01${index}`) ?? 0;
  }

  #keepForDropCopy(record: ExecutionReportRecord): void {
    let log = this.#dropCopy.get(record.userId);
    if (log === undefined) {
      log = [];
      this.#dropCopy.set(record.userId, log);
    }
    log.push(record);
    if (log.length > this.#dropCopyMax) this.#evict(log, log.length - this.#dropCopyMax);
  }

  #trimDropCopy(userId: string): void {
    const log = this.#dropCopy.get(userId);
    if (log === undefined) return;
    const oldest = this.#now() - this.#dropCopyLookbackMs;
    let drop = 0;
    while (drop < log.length && log[drop].transactTimeMs < oldest) drop++;
    if (drop > 0) this.#evict(log, drop);
  }

  #evict(log: ExecutionReportRecord[], count: number): void {
    for (let i = 0; i < count; i++) {
      const record = log[i];
      const key = `${record.userId}\x01${record.exchangeIndex}`;
      if ((this.#evicted.get(key) ?? 0) < record.execSeq) this.#evicted.set(key, record.execSeq);
    }
    log.splice(0, count);
  }

  // ---- engine events ----

  #onEngineEvent(userId: string, order: Order, fill: Fill | null): void {
    const owned = this.#owned.has(order.orderId);
    const capturing = this.#callUser !== null;
    if (!owned && !(capturing && userId === this.#callUser)) return;
    const event = snapshot(order, fill, this.#now());
    if (capturing) this.#captured.push(event);
    else this.#unsolicited(event);
  }

  /** A report nobody asked for: a fill of a resting order, or an order ended by the venue. */
  #unsolicited(event: OrderSnapshot): void {
    const owned = this.#owned.get(event.orderId);
    if (owned === undefined) return;
    if (event.fill) {
      this.emit(this.trade(owned, event), owned.keyId);
      if (event.remainingCount === 0 && event.status !== 'resting') this.release(owned, event.status);
      return;
    }
    if (event.status === 'executed') {
      this.release(owned, 'executed');
      return;
    }
    if (event.status !== 'canceled') return; // a resize made elsewhere (REST amend/decrease): not reported
    const text = event.reason === 'SelfTradeCancel' ? 'MAKER_CANCEL_FOR_SELF_TRADE_PREVENTION' : cancelTextOf(event.reason);
    this.emit(this.canceled(owned, event, text), owned.keyId);
    this.release(owned, 'canceled');
  }
}

function snapshot(order: Order, fill: Fill | null, nowMs: number): OrderSnapshot {
  return {
    fill: fill !== null,
    orderId: order.orderId,
    userId: order.userId,
    clientOrderId: order.clientOrderId,
    ticker: order.ticker,
    side: order.side,
    price: order.price,
    fillCount: order.fillCount,
    remainingCount: order.remainingCount,
    status: order.status,
    reason: order.lastUpdateReason,
    exchangeIndex: order.exchangeIndex,
    subaccount: order.subaccount,
    tsMs: fill !== null ? fill.tsMs : order.lastUpdateMs > 0 ? order.lastUpdateMs : nowMs,
    fillId: fill?.fillId ?? '',
    fillPrice: fill?.price ?? 0,
    fillQty: fill?.count ?? 0,
    isTaker: fill?.isTaker ?? false,
    fee: fill?.fee ?? 0,
    postPosition: fill?.postPosition ?? 0,
  };
}
