/**
 * The order management system: the only writer of order state. The router hands it each intent the
 * gate allowed (accept: client order id, the Order record the route then encodes, the journal
 * line); from then on it applies every answer (ExecListener callbacks from the route) and every
 * private WS message (fill, user_order, market_position from the feed) to the order through
 * transitions.ts, keeps positions with realized PnL and fees, de-duplicates fills, reconciles
 * orders of unknown fate until known, and retries the cancels and cancel-alls it still owes.
 *
 * It emits, never calls into other hops: every change goes to its OmsListener (the gate keeps its
 * exposure ledger from it) from the one place an order changes (#apply), and changes a strategy did
 * not cause itself are queued for the OrderUpdateSink and delivered once the OMS has finished (at
 * the end of the transport's read, answersEnd, or a microtask later), so a strategy reacting to one
 * never re-enters an update. It knows the route only by its port type (order-route.ts) and the
 * gate not at all (oms-ports.ts).
 *
 * Hot path (accept, callbacks, WS messages): synchronous; orders found by handle (this session's
 * id counter: a ring), by id text or by venue id (tables that allocate nothing per entry); order
 * records come from a pool, and an id's string is made only when something reads it. Logging
 * happens only for anomalies.
 * Slow work (journal writes, reconciliation reads, pruning) runs from tick(), the runtime's coarse
 * timer. It never chooses prices.
 */

import { CENTICENTS_INVALID, COUNT_INVALID, FifoMap } from '../core/index.ts';
import type { BookSide, Clock, Count, OrderIntent, Price } from '../core/index.ts';
import { ClientOrderIds, nextSessionEpoch, parseClientOrderId } from './client-order-ids.ts';
import { ClientIdIndex } from './client-id-index.ts';
import { FillDedup } from './fill-dedup.ts';
import { JournalKind } from './journal.ts';
import type { Journal, RecoveredJournal, RecoveredKill } from './journal.ts';
import { NO_LISTENER, NO_SENDER } from './oms-ports.ts';
import type { OmsListener, OmsSender, OrderUpdateSink } from './oms-ports.ts';
import { ORDER_EVENT_NAMES, ORDER_STATE_NAMES, OrderEvent, OrderState, isTerminal } from './order-state.ts';
import type { Order } from './order.ts';
import { OrderPool } from './order-pool.ts';
import { VenueIdIndex } from './venue-order-ids.ts';
import { LiveOrders } from './live-orders.ts';
import type { CreateKey, ExecErrorCode, ExecListener, ExecReject, OrderKey, OrderReads, SelfTradePrevention, WireFill, WireOrder } from './order-route.ts';
import { SILENT_LOGGER } from './oms-inputs.ts';
import type { FillInput, MarketPositionInput, OmsLogger, SystemOrder, UserOrderInput } from './oms-inputs.ts';
import { PositionBook } from './positions.ts';
import type { Position } from './positions.ts';
import { reconcileRound } from './reconciler.ts';
import type { ReconcileHost, ReconcileRoundResult } from './reconciler.ts';
import { NO_TRANSITION, nextState } from './transitions.ts';

/** Outcome of cancel / amend / decrease (append-only). RISK_DENIED: the router's gate said no (gate.detail says why). */
export const OmsResult = {
  OK: 0,
  RISK_DENIED: 1,
  ORDER_UNKNOWN: 2, // no order with that client order id
  ORDER_NOT_LIVE: 3, // filled, cancelled or rejected
  ORDER_BUSY: 4, //    another request for it is in flight, or its fate is unknown
  QUEUED: 5, //        cancel remembered; sent as soon as the order id is known / the pending request ends
  READY: 6, //         the request may go out now (readyToCancel / readyToChange); never a strategy's answer
} as const;
export type OmsResult = (typeof OmsResult)[keyof typeof OmsResult];

export interface OmsOptions {
  /** The venue reads reconciliation uses (the account client). */
  reads: OrderReads;
  /**
   * The Margin exchange's reads (its order route) and that route's index: an order sent on that
   * route is a Margin order, reconciled and its positions re-read there. Absent: no Margin route.
   */
  margin?: { readonly reads: OrderReads; readonly route: number } | null;
  /** Hears of every order change, fill and venue position (the gate keeps its ledger from them). */
  listener?: OmsListener;
  clock: Clock;
  /** Client order id prefix: [A-Za-z0-9_]{1,16} (the instance name). */
  clientOrderIdPrefix: string;
  journal?: Journal | null;
  /** What recover(journalPath) returned; orders not terminal are restored as UNKNOWN and reconciled. */
  recovered?: RecoveredJournal | null;
  logger?: OmsLogger;
  selfTradePrevention?: SelfTradePrevention;
  /** A create/cancel/amend/decrease without any answer for this long becomes UNKNOWN (default 15 s). */
  pendingTimeoutMs?: number;
  /** An UNKNOWN order the venue does not list for this long is closed (REJECTED if never acked) (default 60 s). */
  unknownGraceMs?: number;
  /** Minimum time between reconciliation rounds (default 1 s). */
  reconcileIntervalMs?: number;
  /** Terminal orders stay findable (late fills, acks) this long (default 5 min). */
  terminalRetentionMs?: number;
  /** Subaccounts always included in the kill switch, besides those orders and positions show. */
  subaccounts?: readonly number[];
  fillDedupCapacity?: number;
}

export interface OmsStats {
  ordersSent: number;
  missingTransitions: number;
  duplicateFills: number;
  orphanFills: number;
  positionMismatches: number;
  foreignOrders: number;
  /** Orders the exchange placed on our account (Margin liquidations, fired exit triggers), adopted. */
  systemOrders: number;
  lateMessages: number;
  reconcileRounds: number;
  reconcileErrors: number;
  restoredOrders: number;
  /** Orders of ours resting at the venue that the journal had lost, adopted at start and cancelled. */
  lostOrdersAdopted: number;
}

const ORPHAN_FILLS_MAX = 10_000;
/**
 * The changes' flush is a microtask: a reaction on one resolved promise, which leaves about 40%
 * less garbage per order than Node's queueMicrotask (its AsyncResource and bound function per
 * call; 2M calls with a 1 MB young generation: 188 scavenges against 299). A throw still ends
 * the process (an unhandled rejection), as from queueMicrotask.
 */
const RESOLVED = Promise.resolve();
/** System orders (liquidations, fired triggers) kept for attribution; the oldest are forgotten first. */
const SYSTEM_ORDERS_KEPT = 10_000;

export class Oms implements ExecListener {
  readonly reads: OrderReads;
  readonly positions = new PositionBook();
  readonly clientOrderIds: ClientOrderIds;
  readonly stats: OmsStats = {
    ordersSent: 0,
    missingTransitions: 0,
    duplicateFills: 0,
    orphanFills: 0,
    positionMismatches: 0,
    foreignOrders: 0,
    systemOrders: 0,
    lateMessages: 0,
    reconcileRounds: 0,
    reconcileErrors: 0,
    restoredOrders: 0,
    lostOrdersAdopted: 0,
  };
  /** The last order accept() made: its id as text when it had one, else its counter (the text made when read). */
  #lastIdText = '';
  #lastIdCounter = 0;

  readonly #clock: Clock;
  readonly #journal: Journal | null;
  readonly #log: OmsLogger;
  readonly #selfTradePrevention: SelfTradePrevention;
  readonly #pendingTimeoutMs: number;
  readonly #unknownGraceMs: number;
  readonly #reconcileIntervalMs: number;
  readonly #terminalRetentionMs: number;
  readonly #byClientId: ClientIdIndex;
  /**
   * Orders by venue order id, keyed by the ids' bytes in the records (venue-order-ids.ts): it
   * allocates nothing per entry and no id string (a Map rebuilt its table as orders came and went:
   * 55 bytes an order; the id's string was 40 more).
   */
  readonly #byOrderId: VenueIdIndex<Order>; // over #pool's store of venue ids (set in the constructor)
  readonly #live = new LiveOrders();
  /**
   * Terminal orders in the order they closed, in [#terminalHead, #terminalTail) (pruning advances
   * the head and compacts now and then, never splicing the whole array per tick; the arrays never
   * shrink, so a steady flow of orders reallocates nothing: slots past the tail are stale). Orders flagged for
   * reconciliation may sit here too; #terminalFlagged says whether any might, so the tick does not
   * walk every retained order (tens of thousands at full rate) every 100 ms.
   */
  readonly #terminalQueue: Order[] = [];
  /** Each queued order's record generation when it was queued: an entry whose record was reused since (a resurrected order queued twice) is stale. */
  readonly #terminalGenerations: number[] = [];
  #terminalHead = 0;
  #terminalTail = 0;
  #terminalFlagged = false;
  /**
   * Subaccounts where a reconciliation round booked fills read over REST. Those carry no
   * post-position, and a venue position adopted earlier may already include them, so the round
   * ends by adopting the venue's positions again (the venue is the truth; never count twice).
   */
  readonly #restFillSubaccounts = new Set<number>();
  readonly #orphanFills = new FifoMap<string, number>(ORPHAN_FILLS_MAX);
  readonly #dedup: FillDedup;
  readonly #subaccountsUsed = new Uint8Array(64);
  readonly #pendingKill = new Set<number>();
  readonly #killInFlight = new Set<number>();
  readonly #reconcileHost: ReconcileHost;
  /** The session epochs this runtime's journal recorded: a lost order's id names one of them. */
  readonly #journalSessions: Set<number>;
  readonly #listener: OmsListener;
  #sender: OmsSender = NO_SENDER;
  #updates: OrderUpdateSink | null = null;
  /** Orders whose change their strategy has yet to hear of, [0, #changedCount); the array keeps its storage (a length set to 0 would drop it). */
  readonly #changed: Order[] = [];
  #changedCount = 0;
  #changesScheduled = false;
  /** Inside a transport's answersBegin/answersEnd: answersEnd tells the strategies, no microtask. */
  #answerDepth = 0;
  #flushing = false;
  readonly #flushChangesBound = (): void => this.#flushChanges();
  /** Slots of forgotten orders, handed to the next ones (the gate books by slot). */
  /** The order records, reused once an order is forgotten (#pruneTerminal). */
  readonly #pool = new OrderPool();
  #target: Order | null = null;
  #reconciling: Promise<ReconcileRoundResult> | null = null;
  #killState: RecoveredKill | null = null;
  #lastReconcileMs = -Infinity;
  readonly #margin: { readonly reads: OrderReads; readonly route: number } | null;
  readonly #systemOrders = new FifoMap<string, SystemOrder>(SYSTEM_ORDERS_KEPT);
  #systemOrderSink: ((order: Readonly<SystemOrder>) => void) | null = null;
  /** Subaccounts whose Margin positions are re-read after fills reconciliation pulled (as #restFillSubaccounts). */
  readonly #restFillMarginSubaccounts = new Set<number>();

  constructor(options: OmsOptions) {
    this.#byOrderId = new VenueIdIndex<Order>(this.#pool.venueIds);
    this.reads = options.reads;
    this.#margin = options.margin ?? null;
    this.#listener = options.listener ?? NO_LISTENER;
    this.#clock = options.clock;
    this.#journal = options.journal ?? null;
    this.#log = options.logger ?? SILENT_LOGGER;
    this.#selfTradePrevention = options.selfTradePrevention ?? 'taker_at_cross';
    this.#pendingTimeoutMs = options.pendingTimeoutMs ?? 15_000;
    this.#unknownGraceMs = options.unknownGraceMs ?? 60_000;
    this.#reconcileIntervalMs = options.reconcileIntervalMs ?? 1_000;
    this.#terminalRetentionMs = options.terminalRetentionMs ?? 300_000;
    this.#dedup = new FillDedup(options.fillDedupCapacity);
    for (const subaccount of options.subaccounts ?? []) this.#subaccountsUsed[subaccount] = 1;
    const recovered = options.recovered ?? null;
    const nowMs = this.#clock.nowMs();
    const epoch = nextSessionEpoch(nowMs, recovered === null ? 0 : recovered.sessionEpochMsMax);
    this.clientOrderIds = new ClientOrderIds(options.clientOrderIdPrefix, epoch, recovered === null ? 0 : recovered.counterMax);
    this.#byClientId = new ClientIdIndex(this.clientOrderIds.head);
    this.#journal?.writeSessionSync(nowMs, options.clientOrderIdPrefix, epoch, this.clientOrderIds.counter);
    this.#reconcileHost = this.#makeReconcileHost();
    if (recovered !== null) this.#restore(recovered);
    this.#journalSessions = new Set(recovered?.sessionEpochs ?? []);
  }

  /** Wiring: the router, which sends the cancels the OMS decides on through the gate. */
  setSender(sender: OmsSender): void {
    this.#sender = sender;
  }

  /** Wiring: who hears of order changes a strategy did not cause (the strategy host); null: nobody. */
  setUpdateSink(sink: OrderUpdateSink | null): void {
    this.#updates = sink;
  }

  // ---- queries ---------------------------------------------------------------------------------

  order(clientOrderId: string): Readonly<Order> | undefined {
    return this.#byClientId.get(clientOrderId);
  }

  /** The order of this session with `handle` (Order.handle: its id's counter); undefined when none is tracked. */
  orderByHandle(handle: number): Readonly<Order> | undefined {
    return handle > 0 ? this.#byClientId.own(handle) : undefined;
  }

  orderByOrderId(orderId: string): Readonly<Order> | undefined {
    return this.#byOrderId.get(orderId);
  }

  /**
   * The oldest order not terminal; walk on with its `liveNext` (allocates nothing, for a sampler
   * that reads thousands of orders several times a second; nothing may end an order during the walk).
   */
  get oldestLiveOrder(): Readonly<Order> | null {
    return this.#live.first;
  }

  /** Orders not terminal (off the hot path: allocates the array). */
  liveOrders(): Readonly<Order>[] {
    return [...this.#live];
  }

  get liveOrderCount(): number {
    return this.#live.size;
  }

  position(subaccount: number, ticker: string): Readonly<Position> | undefined {
    return this.positions.get(subaccount, ticker);
  }

  // ---- commands --------------------------------------------------------------------------------

  /**
   * A NEW intent the gate allowed: gives it a client order id and the one Order record the route
   * encodes, tracks and journals it. The router sends it next; `intent` is read, never kept.
   */
  /**
   * `reservedId` / `reservedCounter`: a create the router held goes out under the id it reserved
   * when it held it (reserveClientOrderId), the one its strategy already knows.
   */
  accept(intent: Readonly<OrderIntent>, ticker: string, orderGroupId: string | null, reservedId = '', reservedCounter = 0): Order {
    const nowMs = this.#clock.nowMs();
    // This session's id is left as its counter (no string on the order path); a held create's was
    // made as text when it was held, and keeps it.
    const counter = reservedId === '' ? this.clientOrderIds.take() : reservedCounter;
    const order = this.#pool.take().reinit(
      reservedId,
      counter,
      ticker,
      intent.market,
      intent.side,
      intent.price,
      intent.count,
      intent.timeInForce,
      intent.postOnly,
      intent.reduceOnly,
      this.#selfTradePrevention,
      intent.subaccount,
      orderGroupId,
      orderGroupId === null ? -1 : intent.orderGroup,
      intent.strategyId,
      nowMs,
      this.clientOrderIds,
    );
    order.route = intent.route;
    if (this.#margin !== null && intent.route === this.#margin.route) order.exchange = 'margin';
    this.#byClientId.add(order);
    this.#live.add(order);
    this.#subaccountsUsed[intent.subaccount] = 1;
    this.#journal?.appendIntent(order, nowMs);
    this.#lastIdText = reservedId;
    this.#lastIdCounter = counter;
    this.stats.ordersSent++;
    return order;
  }

  /** Client order id of the last order accept() made ('' before the first). */
  get lastClientOrderId(): string {
    if (this.#lastIdText !== '') return this.#lastIdText;
    return this.#lastIdCounter > 0 ? this.clientOrderIds.format(this.#lastIdCounter) : '';
  }

  /** The next client order id, kept for a create the router holds; accept() takes it back with its counter. */
  reserveClientOrderId(): string {
    return this.clientOrderIds.next();
  }

  /** The route threw while sending `order`: the bytes may or may not have left, so never resend, reconcile. */
  createFailed(order: Order, error: unknown): void {
    this.#log.error({ clientOrderId: order.clientOrderId, error: String(error) }, 'oms: the route threw on create');
    this.#apply(order, OrderEvent.CREATE_UNKNOWN, JournalKind.UNKNOWN, 'CREATE_THREW', 0, false);
  }

  /**
   * Whether a strategy's cancel can go out now. READY (the order is in `target`), or the answer to
   * give: OK (one is in flight), QUEUED (remembered, sent once it can be: no order id yet, or
   * another request pending), ORDER_UNKNOWN, ORDER_NOT_LIVE.
   */
  readyToCancel(clientOrderId: string, handle = 0): OmsResult {
    const order = handle > 0 ? this.#byClientId.own(handle) : this.#byClientId.get(clientOrderId);
    this.#target = order ?? null;
    if (order === undefined) return OmsResult.ORDER_UNKNOWN;
    if (isTerminal(order.state)) return OmsResult.ORDER_NOT_LIVE;
    if (order.state === OrderState.PENDING_CANCEL) return OmsResult.OK;
    if (!order.hasOrderId || (order.state !== OrderState.RESTING && order.state !== OrderState.UNKNOWN)) {
      order.cancelWanted = true;
      return OmsResult.QUEUED;
    }
    return OmsResult.READY;
  }

  /** Whether an amend or decrease can go out now: READY (order in `target`), ORDER_UNKNOWN, ORDER_NOT_LIVE or ORDER_BUSY. `handle` > 0 names the order instead of the text. */
  readyToChange(clientOrderId: string, handle = 0): OmsResult {
    const order = handle > 0 ? this.#byClientId.own(handle) : this.#byClientId.get(clientOrderId);
    this.#target = order ?? null;
    if (order === undefined) return OmsResult.ORDER_UNKNOWN;
    if (isTerminal(order.state)) return OmsResult.ORDER_NOT_LIVE;
    if (order.state !== OrderState.RESTING || !order.hasOrderId) return OmsResult.ORDER_BUSY;
    return OmsResult.READY;
  }

  /** The order the last readyToCancel / readyToChange found (null when unknown). */
  get target(): Order | null {
    return this.#target;
  }

  /** The router is sending a cancel of `order` (the gate allowed it). */
  cancelSent(order: Order): void {
    order.cancelWanted = false;
    order.sentAtMs = this.#clock.nowMs();
    this.#apply(order, OrderEvent.CANCEL_SENT, JournalKind.SENT, '', 0, true);
  }

  /** The gate refused a cancel the OMS wanted sent: kept wanted, the tick retries. */
  cancelDeferred(order: Order): void {
    order.cancelWanted = true;
  }

  /** The router is sending an amend of `order` to `price` with `restingCount` left resting. */
  amendSent(order: Order, price: Price, restingCount: Count): void {
    order.pendingPrice = price;
    order.pendingCount = restingCount;
    order.pendingTotal = order.filledCount + restingCount;
    order.sentAtMs = this.#clock.nowMs();
    this.#apply(order, OrderEvent.AMEND_SENT, JournalKind.SENT, '', 0, true);
  }

  /** The router is sending a decrease of `order`. */
  decreaseSent(order: Order): void {
    order.sentAtMs = this.#clock.nowMs();
    this.#apply(order, OrderEvent.DECREASE_SENT, JournalKind.SENT, '', 0, true);
  }

  /**
   * Kill switch (an operator or a risk breach; the router halts the gate): journaled durably, so a
   * restart stays halted until the operator releases it.
   */
  recordKill(reason: string, source: string): void {
    const nowMs = this.#clock.nowMs();
    this.#killState = { reason, source, tsMs: nowMs };
    this.#journal?.writeKillSync(nowMs, reason, source);
    this.#log.error({ reason, source }, 'oms: kill switch engaged');
  }

  /** The engaged kill switch (this run's or one recovered from the journal), or null. */
  get killSwitchState(): Readonly<RecoveredKill> | null {
    return this.#killState;
  }

  /** The operator's release of the kill switch (journaled with `by`). False when none was engaged. */
  releaseKill(by: string): boolean {
    if (this.#killState === null) return false;
    const nowMs = this.#clock.nowMs();
    this.#log.warn({ by, engaged: this.#killState }, 'oms: kill switch released');
    this.#killState = null;
    this.#journal?.writeReleaseSync(nowMs, by);
    return true;
  }

  /**
   * Cancel-all for every subaccount in use (kill switch and stop path), through the sender. One
   * that is refused or fails is retried from tick(); orders are then reconciled to confirm they closed.
   */
  async cancelEverything(): Promise<void> {
    const subaccounts = this.subaccountsInUse();
    await Promise.all(subaccounts.map((subaccount) => this.#cancelAll(subaccount)));
  }

  /** Subaccounts with orders sent, positions held or configured (the kill switch's set). */
  subaccountsInUse(): number[] {
    const used = new Set<number>();
    this.#subaccountsUsed.forEach((flag, subaccount) => {
      if (flag === 1) used.add(subaccount);
    });
    for (const subaccount of this.positions.subaccountsWithPositions()) used.add(subaccount);
    return [...used].sort((a, b) => a - b);
  }

  /**
   * The coarse tick: pending timeouts, queued cancels, kill-switch retries, journal flush, pruning
   * of old terminal orders, and a reconciliation round when one is due. Never awaits; returns the
   * round's promise when it started one (tests await it), else null.
   */
  tick(): Promise<ReconcileRoundResult> | null {
    const nowMs = this.#clock.nowMs();
    // A walk of the live list without an iterator object; a timeout may end the order it is on.
    let order = this.#live.first;
    while (order !== null) {
      const next = order.liveNext;
      const state = order.state;
      const pending = state === OrderState.PENDING_NEW || state === OrderState.PENDING_CANCEL || state === OrderState.PENDING_AMEND || state === OrderState.PENDING_DECREASE;
      if (pending && nowMs - order.sentAtMs >= this.#pendingTimeoutMs) {
        this.#apply(order, OrderEvent.PENDING_TIMEOUT, JournalKind.STATE, 'PENDING_TIMEOUT', 0, false);
      } else if (order.cancelWanted && order.hasOrderId && (state === OrderState.RESTING || state === OrderState.UNKNOWN)) {
        this.#sender.sendCancel(order);
      }
      order = LiveOrders.successor(order, next);
    }
    if (this.#pendingKill.size > 0) for (const subaccount of this.#pendingKill) if (!this.#killInFlight.has(subaccount)) void this.#cancelAll(subaccount);
    this.#pruneTerminal(nowMs);
    if (this.#journal !== null) {
      this.#journal.pump();
      const error = this.#journal.writeError;
      if (error !== null) this.#log.error({ error: String(error) }, 'oms: journal write failed');
    }
    if (this.#reconciling === null && nowMs - this.#lastReconcileMs >= this.#reconcileIntervalMs && this.#needsReconcile()) {
      return this.reconcile();
    }
    return null;
  }

  /** One reconciliation round now (the tick calls it when due). Concurrent calls share the round. */
  reconcile(): Promise<ReconcileRoundResult> {
    if (this.#reconciling !== null) return this.#reconciling;
    this.#lastReconcileMs = this.#clock.nowMs();
    this.stats.reconcileRounds++;
    const round = reconcileRound(this.#reconcileHost).then(async (result) => {
      await this.#readoptAfterRestFills();
      return result;
    }).finally(() => {
      this.#reconciling = null;
    });
    this.#reconciling = round;
    return round;
  }

  /**
   * Asks the venue about one order at the next reconciliation round (an operator or strategy that
   * doubts our view). Returns false when the order is not tracked.
   */
  requestReconcile(clientOrderId: string): boolean {
    const order = this.#byClientId.get(clientOrderId);
    if (order === undefined) return false;
    order.needsReconcile = true;
    if (isTerminal(order.state)) {
      this.#terminalFlagged = true;
      if (!this.#terminalQueued(order)) this.#queueTerminal(order);
    }
    return true;
  }

  async #readoptAfterRestFills(): Promise<void> {
    await this.#readoptPositions(this.reads, this.#restFillSubaccounts);
    if (this.#margin !== null) await this.#readoptPositions(this.#margin.reads, this.#restFillMarginSubaccounts);
  }

  async #readoptPositions(reads: OrderReads, pending: Set<number>): Promise<void> {
    if (pending.size === 0) return;
    const subaccounts = [...pending];
    pending.clear();
    for (const subaccount of subaccounts) {
      try {
        const positions = await reads.listPositions({ subaccount });
        for (const wire of positions) this.#adoptPosition(wire.subaccount >= 0 ? wire.subaccount : subaccount, wire.ticker, wire.position);
      } catch (error) {
        pending.add(subaccount); // asked again after the next round
        this.stats.reconcileErrors++;
        this.#log.warn({ subaccount, error: String(error) }, 'oms: positions read after REST fills failed; retried next round');
      }
    }
  }

  /** Adopts the venue's positions (start-up, after a reconnect): listPositions per subaccount in use, on each exchange. */
  async reconcilePositions(): Promise<void> {
    for (const reads of this.#margin === null ? [this.reads] : [this.reads, this.#margin.reads]) {
      for (const subaccount of this.subaccountsInUse()) {
        const positions = await reads.listPositions({ subaccount });
        for (const wire of positions) this.#adoptPosition(wire.subaccount >= 0 ? wire.subaccount : subaccount, wire.ticker, wire.position);
      }
    }
  }

  /** Flushes and closes the journal. */
  async stop(): Promise<void> {
    if (this.#reconciling !== null) await this.#reconciling.catch(() => undefined);
    await this.#journal?.close();
  }

  // ---- ExecListener ----------------------------------------------------------------------------

  onCreateAck(key: CreateKey, orderId: string, fillCount: Count, remainingCount: Count, _tsMs: number): void {
    const order = this.#createTarget(key);
    if (order === undefined) return this.#late('create ack', String(key));
    this.#setOrderId(order, orderId);
    this.#createAcked(order, fillCount, remainingCount);
  }

  onCreateAckBytes(key: CreateKey, bytes: Uint8Array, start: number, end: number, fillCount: Count, remainingCount: Count, _tsMs: number): void {
    const order = this.#createTarget(key);
    if (order === undefined) return this.#late('create ack', String(key));
    this.#setOrderIdBytes(order, bytes, start, end);
    this.#createAcked(order, fillCount, remainingCount);
  }

  #createAcked(order: Order, fillCount: Count, remainingCount: Count): void {
    const closed = remainingCount === 0 && fillCount < order.totalCount;
    order.applyAggregate(fillCount, remainingCount, closed);
    const event = remainingCount > 0 ? OrderEvent.CREATE_ACK_OPEN : order.complete ? OrderEvent.CREATE_ACK_FILLED : OrderEvent.CREATE_ACK_DONE;
    this.#apply(order, event, JournalKind.ACK, '', 0, false);
    this.#afterEvent(order);
  }

  onCreateReject(key: CreateKey, reject: ExecReject): void {
    const order = this.#createTarget(key);
    if (order === undefined) return this.#late('create reject', String(key));
    if ((reject.status === 0 && !notSent(reject)) || reject.code.startsWith('order_already_exists')) {
      // status 0: a transport failure reported as a reject (fate unknown). 409: an order with this id
      // exists at the venue - ours, from a request we think failed. Either way: reconcile, never resend.
      if (reject.status !== 0) this.#log.error({ clientOrderId: order.clientOrderId, code: reject.code }, 'oms: venue says this client order id exists');
      this.#apply(order, OrderEvent.CREATE_UNKNOWN, JournalKind.UNKNOWN, reject.code, reject.status, false);
      return;
    }
    if (reject.status === 429) this.#listener.onVenueRateLimited(this.#clock.nowMs());
    this.#apply(order, OrderEvent.CREATE_REJECT, JournalKind.REJECT, reject.code, reject.status, false);
  }

  onCreateUnknown(key: CreateKey, code: ExecErrorCode): void {
    const order = this.#createTarget(key);
    if (order === undefined) return this.#late('create unknown', String(key));
    this.#apply(order, OrderEvent.CREATE_UNKNOWN, JournalKind.UNKNOWN, code, 0, false);
  }

  /** The order a create's answer is for: by its handle (the route's own request) or its id's text. */
  #createTarget(key: CreateKey): Order | undefined {
    return typeof key === 'number' ? this.#byClientId.own(key) : this.#byClientId.get(key);
  }

  /** The order a cancel's answer is for: by its handle (cancelled by cancelOrder) or its venue id's text. */
  #cancelTarget(key: OrderKey): Order | undefined {
    return typeof key === 'number' ? this.#byClientId.own(key) : this.#byOrderId.get(key);
  }

  onCancelAck(key: OrderKey, _reducedBy: Count, _tsMs: number): void {
    const order = this.#cancelTarget(key);
    if (order === undefined) return this.#late('cancel ack', String(key));
    order.applyAggregate(order.filledCount, 0, true);
    this.#apply(order, OrderEvent.CANCEL_ACK, JournalKind.ACK, '', 0, false);
  }

  onCancelReject(key: OrderKey, reject: ExecReject): void {
    const order = this.#cancelTarget(key);
    if (order === undefined) return this.#late('cancel reject', String(key));
    if (reject.status === 0 && !notSent(reject)) return this.onCancelUnknown(key, reject.code as ExecErrorCode);
    if (reject.status === 404 || reject.code.startsWith('not_found')) {
      this.#apply(order, OrderEvent.CANCEL_GONE, JournalKind.REJECT, reject.code, reject.status, false);
      return;
    }
    if (reject.status === 429 || notSent(reject)) {
      if (reject.status === 429) this.#listener.onVenueRateLimited(this.#clock.nowMs());
      order.cancelWanted = true; // still wanted: the tick retries
    }
    this.#apply(order, OrderEvent.CANCEL_REJECT, JournalKind.REJECT, reject.code, reject.status, false);
  }

  onCancelUnknown(key: OrderKey, code: ExecErrorCode): void {
    const order = this.#cancelTarget(key);
    if (order === undefined) return this.#late('cancel unknown', String(key));
    this.#apply(order, OrderEvent.CANCEL_UNKNOWN, JournalKind.UNKNOWN, code, 0, false);
  }

  onAmendAck(orderId: string, fillCount: Count, remainingCount: Count, _tsMs: number): void {
    const order = this.#byOrderId.get(orderId);
    if (order === undefined) return this.#late('amend ack', orderId);
    if (order.pendingPrice > 0) order.price = order.pendingPrice;
    if (isTerminal(order.state)) {
      // A user_order or fill closed it first: the ack may add fills, never reopen a remainder.
      if (fillCount !== COUNT_INVALID) order.applyAggregate(fillCount, 0, true);
    } else if (fillCount !== COUNT_INVALID && remainingCount !== COUNT_INVALID) {
      // remaining 0 with fills short of the amended total: the venue closed it (post-only cross cancel).
      const askedTotal = order.pendingTotal > 0 ? order.pendingTotal : order.totalCount;
      order.applyAggregate(fillCount, remainingCount, remainingCount === 0 && fillCount < askedTotal);
    } else {
      order.totalCount = order.filledCount + order.remainingCount; // size unchanged, only the price moved
    }
    const event = remainingCount !== 0 ? OrderEvent.AMEND_ACK_OPEN : order.complete ? OrderEvent.AMEND_ACK_FILLED : OrderEvent.AMEND_ACK_DONE;
    this.#apply(order, event, JournalKind.ACK, '', 0, false);
    this.#afterEvent(order);
  }

  onAmendReject(orderId: string, reject: ExecReject): void {
    const order = this.#byOrderId.get(orderId);
    if (order === undefined) return this.#late('amend reject', orderId);
    if ((reject.status === 0 && !notSent(reject)) || reject.status === 404) return this.onAmendUnknown(orderId, reject.code as ExecErrorCode);
    if (reject.status === 429) this.#listener.onVenueRateLimited(this.#clock.nowMs());
    this.#apply(order, OrderEvent.AMEND_REJECT, JournalKind.REJECT, reject.code, reject.status, false);
    this.#afterEvent(order);
  }

  onAmendUnknown(orderId: string, code: ExecErrorCode): void {
    const order = this.#byOrderId.get(orderId);
    if (order === undefined) return this.#late('amend unknown', orderId);
    this.#apply(order, OrderEvent.AMEND_UNKNOWN, JournalKind.UNKNOWN, code, 0, false);
  }

  onDecreaseAck(orderId: string, remainingCount: Count, _tsMs: number): void {
    const order = this.#byOrderId.get(orderId);
    if (order === undefined) return this.#late('decrease ack', orderId);
    order.applyAggregate(order.filledCount, remainingCount, remainingCount === 0);
    this.#apply(order, remainingCount === 0 ? OrderEvent.DECREASE_ACK_DONE : OrderEvent.DECREASE_ACK_OPEN, JournalKind.ACK, '', 0, false);
    this.#afterEvent(order);
  }

  onDecreaseReject(orderId: string, reject: ExecReject): void {
    const order = this.#byOrderId.get(orderId);
    if (order === undefined) return this.#late('decrease reject', orderId);
    if ((reject.status === 0 && !notSent(reject)) || reject.status === 404) return this.onDecreaseUnknown(orderId, reject.code as ExecErrorCode);
    if (reject.status === 429) this.#listener.onVenueRateLimited(this.#clock.nowMs());
    this.#apply(order, OrderEvent.DECREASE_REJECT, JournalKind.REJECT, reject.code, reject.status, false);
    this.#afterEvent(order);
  }

  onDecreaseUnknown(orderId: string, code: ExecErrorCode): void {
    const order = this.#byOrderId.get(orderId);
    if (order === undefined) return this.#late('decrease unknown', orderId);
    this.#apply(order, OrderEvent.DECREASE_UNKNOWN, JournalKind.UNKNOWN, code, 0, false);
  }

  // ---- WebSocket private channels (called by the feed) ----------------------------------------

  onUserOrder(message: UserOrderInput): void {
    let order = message.orderId !== '' ? this.#byOrderId.get(message.orderId) : undefined;
    if (order === undefined && message.clientOrderId !== '') order = this.#byClientId.get(message.clientOrderId);
    if (order === undefined) {
      if (message.orderSource === 'system') this.#adoptSystemOrder(message);
      else this.stats.foreignOrders++; // another session's or a manual order: positions still come from fills
      return;
    }
    this.#setOrderId(order, message.orderId);
    if (message.yesPrice > 0) order.price = message.yesPrice;
    const status = message.status;
    if (message.fillCount !== COUNT_INVALID && message.remainingCount !== COUNT_INVALID) {
      order.applyAggregate(message.fillCount, status === 'resting' ? message.remainingCount : 0, status === 'canceled');
    }
    const event = status === 'resting' ? OrderEvent.WS_RESTING : status === 'canceled' ? OrderEvent.WS_CANCELED : OrderEvent.WS_EXECUTED;
    this.#apply(order, event, JournalKind.STATE, message.lastUpdateReason, 0, false);
    this.#afterEvent(order);
  }

  onFill(message: FillInput): void {
    if (!this.#dedup.firstTime(message.tradeId)) {
      this.stats.duplicateFills++;
      return;
    }
    let order = message.orderId !== '' ? this.#byOrderId.get(message.orderId) : undefined;
    if (order === undefined && message.clientOrderId !== '') order = this.#byClientId.get(message.clientOrderId);
    const subaccount = message.subaccount >= 0 ? message.subaccount : order !== undefined ? order.subaccount : 0;
    const fee = message.feeCost === CENTICENTS_INVALID ? 0 : message.feeCost;
    this.#bookFill(order, message.tradeId, message.orderId, message.marketTicker, message.bookSide, message.yesPrice, message.count, fee, message.postPosition, subaccount, message.isTaker, message.tsMs);
  }

  onMarketPosition(message: MarketPositionInput): void {
    const subaccount = message.subaccount >= 0 ? message.subaccount : 0;
    const position = this.positions.at(subaccount, message.marketTicker);
    if (message.realizedPnl !== CENTICENTS_INVALID) position.venueRealizedPnlCenticents = message.realizedPnl;
    if (message.feesPaid !== CENTICENTS_INVALID) position.venueFeesPaidCenticents = message.feesPaid;
    if (message.position !== COUNT_INVALID) this.#adoptPosition(subaccount, message.marketTicker, message.position);
  }

  // ---- internals -------------------------------------------------------------------------------

  /**
   * The one place an order changes state: table lookup, anomaly handling, journal, then the
   * listener (the gate's ledger) and, unless the change is the strategy's own request (`own`), the
   * queue of changes its strategy hears of.
   */
  #apply(order: Order, event: OrderEvent, kind: JournalKind, code: string, status: number, own: boolean): void {
    const nowMs = this.#clock.nowMs();
    const before = order.state;
    const next = nextState(before, event);
    order.lastEventMs = nowMs;
    if (next === NO_TRANSITION) {
      order.anomalies++;
      this.stats.missingTransitions++;
      const reconcileEvent = event >= OrderEvent.RECONCILE_RESTING && event <= OrderEvent.RECONCILE_GONE_EXPIRED;
      if (!reconcileEvent) {
        order.needsReconcile = true; // one reconcile to settle it; never a loop
        this.#terminalFlagged = true; // the order may be terminal
      }
      this.#log.warn(
        { clientOrderId: order.clientOrderId, orderId: order.orderId, state: ORDER_STATE_NAMES[before], event: ORDER_EVENT_NAMES[event] },
        'oms: no transition for (state, event); order kept and flagged for reconciliation',
      );
    } else {
      order.state = next;
      if (next === OrderState.UNKNOWN) {
        if (before !== OrderState.UNKNOWN) order.unknownSinceMs = nowMs;
        order.needsReconcile = true;
      } else {
        order.needsReconcile = false;
      }
    }
    this.#listener.onOrderChange(order);
    if (isTerminal(order.state)) {
      if (this.#live.delete(order)) {
        order.cancelWanted = false;
        order.terminalAtMs = nowMs;
        this.#queueTerminal(order);
      }
    } else if (!this.#live.has(order)) {
      this.#live.add(order); // resurrected by a late venue message
    }
    this.#journal?.appendOrderEvent(kind, order, event, nowMs, code, status);
    if (!own) this.#noteChange(order);
  }

  /**
   * An order the exchange placed for us (no client order id of ours): kept, bounded, so its fills
   * (which move the position like any fill) are attributed to a liquidation or a fired trigger,
   * and told to the system-order sink (the exit-trigger table links it, the runtime logs it).
   */
  #adoptSystemOrder(message: UserOrderInput): void {
    let known = this.#systemOrders.get(message.orderId);
    if (known === undefined) {
      known = {
        orderId: message.orderId, ticker: message.ticker, subaccount: message.subaccount >= 0 ? message.subaccount : 0, side: message.bookSide,
        reason: message.orderReason ?? '', fillCount: message.fillCount, remainingCount: message.remainingCount, status: message.status,
      };
      this.#systemOrders.set(message.orderId, known);
      this.stats.systemOrders++;
      this.#log.info({ orderId: known.orderId, ticker: known.ticker, subaccount: known.subaccount, reason: known.reason }, 'oms: the exchange placed an order on the account (adopted)');
    } else {
      known.fillCount = message.fillCount;
      known.remainingCount = message.remainingCount;
      known.status = message.status;
    }
    this.#systemOrderSink?.(known);
  }

  /** An order the exchange placed for us (Margin), by its venue id; undefined when none (or forgotten). */
  systemOrder(orderId: string): Readonly<SystemOrder> | undefined {
    return this.#systemOrders.get(orderId);
  }

  /** Wiring: who hears of each system order's change (the exit-trigger table, logs); null: nobody. */
  setSystemOrderSink(sink: ((order: Readonly<SystemOrder>) => void) | null): void {
    this.#systemOrderSink = sink;
  }

  #noteChange(order: Order): void {
    if (this.#updates === null || order.updateQueued) return;
    order.updateQueued = true;
    if (this.#changedCount === this.#changed.length) this.#changed.push(order);
    else this.#changed[this.#changedCount] = order;
    this.#changedCount++;
    if (this.#changesScheduled || this.#answerDepth > 0) return;
    this.#changesScheduled = true;
    void RESOLVED.then(this.#flushChangesBound);
  }

  /** ExecListener: the answers of one read follow. */
  answersBegin(): void {
    this.#answerDepth++;
  }

  /**
   * ExecListener: the read's answers are applied: tell the strategies now. Changes queued while a
   * flush is running (an answer inside a strategy's reaction) or with a microtask already pending
   * are left to those.
   */
  answersEnd(): void {
    if (this.#answerDepth > 0) this.#answerDepth--;
    if (this.#answerDepth === 0 && this.#changedCount > 0 && !this.#changesScheduled && !this.#flushing) this.#flushChanges();
  }

  /** Reports the queued changes; those a strategy's reaction adds are reported in the next round. */
  #flushChanges(): void {
    this.#changesScheduled = false;
    const changed = this.#changed;
    const count = this.#changedCount;
    this.#flushing = true;
    try {
      for (let i = 0; i < count; i++) {
        const order = changed[i];
        order.updateQueued = false;
        this.#updates?.onOrderUpdate(order);
      }
    } finally {
      this.#flushing = false;
    }
    // Changes a strategy's reaction queued meanwhile move to the front, for the next round.
    const more = this.#changedCount - count;
    changed.copyWithin(0, count, count + more);
    this.#changedCount = more;
    if (more > 0 && !this.#changesScheduled) {
      this.#changesScheduled = true;
      void RESOLVED.then(this.#flushChangesBound);
    }
  }

  /** After an event that may have given the order an id or ended a pending request: send a queued cancel. */
  #afterEvent(order: Order): void {
    if (order.cancelWanted && order.hasOrderId && order.state === OrderState.RESTING) this.#sender.sendCancel(order);
  }

  async #cancelAll(subaccount: number): Promise<void> {
    this.#killInFlight.add(subaccount);
    try {
      await this.#sender.cancelAll(subaccount);
      this.#pendingKill.delete(subaccount);
      for (const order of this.#live) if (order.subaccount === subaccount) order.needsReconcile = true;
    } catch (error) {
      this.#pendingKill.add(subaccount);
      this.#log.error({ subaccount, error: String(error) }, 'oms: cancel-all refused or failed; retried on the next tick');
    } finally {
      this.#killInFlight.delete(subaccount);
    }
  }

  #setOrderId(order: Order, orderId: string): void {
    if (orderId === '' || order.orderIdIs(orderId)) return;
    if (order.hasOrderId) {
      this.#log.warn({ clientOrderId: order.clientOrderId, known: order.orderId, offered: orderId }, 'oms: second order id for one client order id ignored');
      return;
    }
    order.setOrderIdText(orderId);
    this.#orderIdSet(order);
  }

  /** #setOrderId for an id read off the wire as bytes: kept as bytes, its string not made (text when not storable). */
  #setOrderIdBytes(order: Order, bytes: Uint8Array, start: number, end: number): void {
    if (end <= start || order.orderIdIsBytes(bytes, start, end)) return;
    if (!order.hasOrderId && order.setOrderIdBytes(bytes, start, end)) return this.#orderIdSet(order);
    // A second id (warned about) or one that cannot be kept as bytes: as text.
    this.#setOrderId(order, Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1'));
  }

  #orderIdSet(order: Order): void {
    this.#byOrderId.add(order);
    // Fills that came before their order's id are rare: no id string unless there are any.
    if (this.#orphanFills.size === 0) return;
    const orphan = this.#orphanFills.get(order.orderId);
    if (orphan !== undefined) {
      this.#orphanFills.delete(order.orderId);
      order.applyFill(orphan);
    }
  }

  /** Books a new (already de-duplicated) fill: journal, position, ledger, group window, order counts and state. */
  #bookFill(
    order: Order | undefined,
    tradeId: string,
    orderId: string,
    ticker: string,
    side: BookSide,
    price: Price,
    count: number,
    feeCenticents: number,
    postPosition: number,
    subaccount: number,
    isTaker: boolean,
    tsMs: number,
  ): void {
    const nowMs = this.#clock.nowMs();
    this.#journal?.appendFill(tradeId, orderId, order === undefined ? '' : order.clientOrderId, ticker, side, price, count, feeCenticents, postPosition, subaccount, isTaker, tsMs > 0 ? tsMs : nowMs);
    const position = this.positions.at(subaccount, ticker);
    position.applyFill(side, price, count, feeCenticents);
    const fillMs = tsMs > 0 ? tsMs : nowMs;
    if (order === undefined) this.#listener.onFill(-1, ticker, subaccount, side, count, -1, null, fillMs);
    else this.#listener.onFill(order.market, ticker, subaccount, side, count, order.groupHandle, order.orderGroupId, fillMs);
    if (postPosition !== COUNT_INVALID) this.#adoptPosition(subaccount, ticker, postPosition);
    if (order === undefined) {
      this.stats.orphanFills++;
      if (orderId !== '') {
        this.#orphanFills.set(orderId, (this.#orphanFills.get(orderId) ?? 0) + count);
      }
      return;
    }
    order.fees += feeCenticents;
    this.#setOrderId(order, orderId);
    // A fill the order's count already holds changes no state: the order channel's aggregate (an
    // executed or partly filled user_order, an ack's fill count) can come before the fill that made
    // it (the simulator's Margin feed sends executed first), and its event moved the state then. A
    // fill that adds to a FILLED order is an over-fill, and the table flags it.
    if (order.applyFill(count) === 0) return;
    this.#apply(order, order.complete ? OrderEvent.FILL_FULL : OrderEvent.FILL_PARTIAL, JournalKind.STATE, tradeId, 0, false);
    this.#afterEvent(order);
  }

  #adoptPosition(subaccount: number, ticker: string, venuePosition: number): void {
    const position = this.positions.at(subaccount, ticker);
    const ours = position.position;
    if (position.adopt(venuePosition)) {
      this.stats.positionMismatches++;
      this.#log.warn({ subaccount, ticker, ours, venue: venuePosition }, 'oms: venue position differs from ours; adopted');
    }
    this.#listener.onPosition(ticker, subaccount, venuePosition);
  }

  #late(what: string, id: string): void {
    this.stats.lateMessages++;
    this.#log.warn({ what, id }, 'oms: answer for an order we do not track (pruned or foreign)');
  }

  #needsReconcile(): boolean {
    for (let order = this.#live.first; order !== null; order = order.liveNext) if (order.needsReconcile) return true;
    if (!this.#terminalFlagged) return false;
    const queue = this.#terminalQueue;
    for (let i = this.#terminalHead; i < this.#terminalTail; i++) if (queue[i].needsReconcile) return true;
    this.#terminalFlagged = false;
    return false;
  }

  #queueTerminal(order: Order): void {
    const tail = this.#terminalTail++;
    if (tail === this.#terminalQueue.length) {
      this.#terminalQueue.push(order);
      this.#terminalGenerations.push(order.generation);
    } else {
      this.#terminalQueue[tail] = order;
      this.#terminalGenerations[tail] = order.generation;
    }
  }

  #terminalQueued(order: Order): boolean {
    const queue = this.#terminalQueue;
    for (let i = this.#terminalHead; i < this.#terminalTail; i++) if (queue[i] === order) return true;
    return false;
  }

  /**
   * Forgets the orders terminal for terminalRetentionMs and gives their records back to the pool.
   * A record goes back only when nothing of the OMS still holds it: not while a reconciliation
   * round (which holds orders across its reads) is in flight, and not while the order waits in
   * the queue of changes its strategy is told of (the next tick takes it).
   */
  #pruneTerminal(nowMs: number): void {
    if (this.#reconciling !== null) return;
    const queue = this.#terminalQueue;
    const generations = this.#terminalGenerations;
    let head = this.#terminalHead;
    let tail = this.#terminalTail;
    while (head < tail) {
      const order = queue[head];
      if (order.generation === generations[head]) {
        if (nowMs - order.terminalAtMs < this.#terminalRetentionMs) break;
        if (order.updateQueued) break;
        if (isTerminal(order.state) && this.#byClientId.remove(order)) {
          if (order.hasOrderId) this.#byOrderId.remove(order);
          this.#pool.release(order);
        }
      }
      head++;
    }
    // Compact once the dropped prefix is half the queue: amortised O(1) per order.
    if (head === tail) {
      head = 0;
      tail = 0;
    } else if (head >= 1024 && head * 2 >= tail) {
      queue.copyWithin(0, head, tail);
      generations.copyWithin(0, head, tail);
      tail -= head;
      head = 0;
    }
    this.#terminalHead = head;
    this.#terminalTail = tail;
  }

  /** The order records' pool: made, reused and released so far (bench/hot-path, tests). */
  get orderRecords(): Readonly<{ size: number; free: number; created: number; reused: number; released: number }> {
    const pool = this.#pool;
    return { size: pool.size, free: pool.freeCount, ...pool.stats };
  }

  #restore(recovered: RecoveredJournal): void {
    const nowMs = this.#clock.nowMs();
    for (const fill of recovered.fills) {
      if (!this.#dedup.firstTime(fill.tradeId)) continue;
      const position = this.positions.at(fill.subaccount, fill.ticker);
      position.applyFill(fill.side, fill.price, fill.count, fill.feeCenticents);
      if (fill.postPosition !== null) position.adopt(fill.postPosition);
    }
    for (const position of this.positions.all()) this.#listener.onPosition(position.ticker, position.subaccount, position.position);
    for (const saved of recovered.orders) {
      if (isTerminal(saved.state)) continue;
      // Market and group are found by ticker and id where needed: handles are this run's.
      const order = this.#pool.take().reinit(
        saved.clientOrderId,
        saved.counter,
        saved.ticker,
        -1,
        saved.side,
        saved.price,
        saved.totalCount,
        saved.timeInForce,
        saved.postOnly,
        saved.reduceOnly,
        this.#selfTradePrevention,
        saved.subaccount,
        saved.orderGroupId,
        -1,
        saved.strategyId,
        saved.createdAtMs,
      );
      order.filledCount = saved.filledCount;
      order.venueFilled = saved.filledCount;
      if (saved.exchange === 'margin' && this.#margin !== null) {
        order.exchange = 'margin';
        order.route = this.#margin.route;
      }
      order.fillSum = 0; // fills are re-read by reconciliation; de-dup keeps journaled ones from counting twice
      order.remainingCount = saved.remainingCount;
      order.state = OrderState.UNKNOWN; // whatever it was, only the venue knows now
      order.unknownSinceMs = saved.lastEventMs;
      order.needsReconcile = true;
      this.#byClientId.set(order.clientOrderId, order);
      if (saved.orderId !== '') this.#setOrderId(order, saved.orderId);
      this.#live.add(order);
      this.#subaccountsUsed[order.subaccount] = 1;
      this.#listener.onOrderChange(order);
      this.#journal?.appendOrderEvent(JournalKind.RECONCILE, order, -1, nowMs, 'RESTORED', 0);
      this.stats.restoredOrders++;
    }
    if (recovered.kill !== null) {
      // A restart never releases the kill switch by itself.
      this.#killState = { ...recovered.kill }; // the router halts the gate when it sees it
    }
    if (recovered.badLines > 0) this.#log.warn({ path: recovered.path, badLines: recovered.badLines }, 'oms: journal lines skipped (torn by a crash?)');
  }

  /**
   * Orders of ours resting at the venue that the journal lost: a crash after a create was sent and
   * before its intent's line was flushed leaves an order no restored record names. Listed per
   * subaccount on each exchange the OMS routes to (Predictions, and Margin when it is on),
   * recognised by this runtime's client order id prefix and a session epoch its journal recorded
   * (another runtime on the account with the same prefix has sessions of its own, and its orders
   * are never touched), adopted as RESTING under no strategy (no journaled intent says whose it
   * was) and cancelled at once on its exchange's route; the tick retries a cancel the gate
   * refuses. Start-up only, after the journal's orders were restored. A subaccount whose read
   * fails is logged and skipped. Returns how many were adopted.
   */
  async adoptLostOrders(subaccounts: readonly number[]): Promise<number> {
    let adopted = 0;
    const exchanges: { reads: OrderReads; margin: boolean }[] = [{ reads: this.reads, margin: false }];
    if (this.#margin !== null) exchanges.push({ reads: this.#margin.reads, margin: true });
    for (const exchange of exchanges) {
      for (const subaccount of subaccounts) {
        let wires: WireOrder[];
        try {
          wires = await exchange.reads.listOrders({ status: 'resting', subaccount });
        } catch (error) {
          this.#log.warn({ err: error, subaccount, margin: exchange.margin }, 'oms: listing resting orders for lost ones failed; skipped');
          continue;
        }
        for (const wire of wires) {
          if (wire.status !== 'resting' || wire.clientOrderId === '' || this.#byClientId.has(wire.clientOrderId)) continue;
          const parsed = parseClientOrderId(wire.clientOrderId);
          if (parsed === null || parsed.prefix !== this.clientOrderIds.prefix || !this.#journalSessions.has(parsed.sessionEpochMs)) continue;
          this.#adoptLost(wire, parsed.counter, exchange.margin);
          adopted++;
        }
      }
    }
    return adopted;
  }

  #adoptLost(wire: WireOrder, counter: number, margin: boolean): void {
    const nowMs = this.#clock.nowMs();
    const order = this.#pool.take().reinit(
      wire.clientOrderId, counter, wire.ticker, -1, wire.side, wire.price, wire.initialCount,
      'good_till_canceled', false, false, this.#selfTradePrevention, wire.subaccount, wire.orderGroupId, -1, -1,
      wire.createdTimeMs > 0 ? wire.createdTimeMs : nowMs,
    );
    if (margin && this.#margin !== null) {
      order.exchange = 'margin';
      order.route = this.#margin.route;
    }
    order.filledCount = wire.fillCount;
    order.venueFilled = wire.fillCount;
    order.remainingCount = wire.remainingCount;
    order.state = OrderState.RESTING;
    order.cancelWanted = true;
    this.#byClientId.set(order.clientOrderId, order);
    this.#setOrderId(order, wire.orderId);
    this.#live.add(order);
    this.#subaccountsUsed[order.subaccount] = 1;
    this.#listener.onOrderChange(order);
    this.#journal?.appendOrderEvent(JournalKind.RECONCILE, order, -1, nowMs, 'ADOPTED_LOST', 0);
    this.stats.lostOrdersAdopted++;
    this.#log.warn({ clientOrderId: order.clientOrderId, orderId: order.orderId, ticker: order.ticker, subaccount: order.subaccount, exchange: order.exchange }, 'oms: an order of ours rests at the venue without a journal record (lost in a crash?); adopted and cancelled');
    this.#sender.sendCancel(order);
  }

  #makeReconcileHost(): ReconcileHost {
    return {
      readsOf: (order: Order): OrderReads => (order.exchange === 'margin' && this.#margin !== null ? this.#margin.reads : this.reads),
      ordersToReconcile: (): Order[] => {
        const out: Order[] = [];
        for (const order of this.#live) if (order.needsReconcile) out.push(order);
        const queue = this.#terminalQueue;
        for (let i = this.#terminalHead; i < this.#terminalTail; i++) if (queue[i].needsReconcile) out.push(queue[i]);
        return out;
      },
      stillNeedsReconcile: (order: Order): boolean => order.needsReconcile,
      takeReadToken: (): boolean => this.#sender.takeReadToken(),
      readSettled: (): void => this.#sender.readSettled(),
      applyFound: (order: Order, wire: WireOrder): void => this.#applyFound(order, wire),
      applyMissing: (order: Order): void => this.#applyMissing(order),
      applyWireFill: (order: Order, fill: WireFill): void => {
        if (!this.#dedup.firstTime(fill.fillId)) {
          this.stats.duplicateFills++;
          return;
        }
        this.#bookFill(order, fill.fillId, fill.orderId, fill.ticker, fill.side, fill.price, fill.count, fill.feeCenticents, COUNT_INVALID, fill.subaccount, fill.isTaker, fill.tsMs);
        (order.exchange === 'margin' ? this.#restFillMarginSubaccounts : this.#restFillSubaccounts).add(fill.subaccount >= 0 ? fill.subaccount : order.subaccount);
      },
      onReconcileError: (error: unknown, what: string): void => {
        this.stats.reconcileErrors++;
        this.#log.warn({ what, error: String(error) }, 'oms: reconciliation read failed; retried next round');
      },
    };
  }

  #applyFound(order: Order, wire: WireOrder): void {
    this.#setOrderId(order, wire.orderId);
    if (wire.price > 0) order.price = wire.price;
    const status = wire.status;
    order.applyAggregate(wire.fillCount, status === 'resting' ? wire.remainingCount : 0, status === 'canceled');
    const event = status === 'resting' ? OrderEvent.RECONCILE_RESTING : status === 'canceled' ? OrderEvent.RECONCILE_CANCELED : OrderEvent.RECONCILE_EXECUTED;
    order.needsReconcile = false;
    this.#apply(order, event, JournalKind.RECONCILE, status, 0, false);
    this.#afterEvent(order);
  }

  #applyMissing(order: Order): void {
    if (order.state !== OrderState.UNKNOWN) {
      // Flagged after a contradiction but in a known state: the venue does not list it; keep ours.
      order.needsReconcile = false;
      this.#log.warn({ clientOrderId: order.clientOrderId, state: ORDER_STATE_NAMES[order.state] }, 'oms: flagged order not listed by the venue; state kept');
      return;
    }
    const expired = this.#clock.nowMs() - order.unknownSinceMs >= this.#unknownGraceMs;
    const event = !expired ? OrderEvent.RECONCILE_MISSING : !order.hasOrderId ? OrderEvent.RECONCILE_MISSING_EXPIRED : OrderEvent.RECONCILE_GONE_EXPIRED;
    if (expired) order.applyAggregate(order.filledCount, 0, true);
    this.#apply(order, event, JournalKind.RECONCILE, 'MISSING', 0, false);
  }
}

/**
 * A request the transport refused before writing it (status 0, a message starting "not sent": its
 * queue was full or it waited past the bound for a connection, order-route.ts). Nothing reached the
 * venue, so its fate is known: a plain reject, not a reconciliation (which, for a create the venue
 * never saw, would wait out the whole grace period).
 */
function notSent(reject: Readonly<ExecReject>): boolean {
  return reject.status === 0 && reject.message.startsWith('not sent');
}
