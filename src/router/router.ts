/**
 * The router: the one way from a strategy's intent to the wire, each hop called once, in order,
 * on the same record.
 *
 *   NEW:                  gate.check(intent) -> oms.accept(intent) -> route.create(order) -> gate books it
 *   CANCEL/AMEND/DECREASE: oms.readyTo*(id) -> intent completed from the order -> gate.check(intent)
 *                          -> oms.*Sent(order) -> route.cancel / amend / decrease
 *
 * It is also the OMS's sender (the cancels and cancel-alls the OMS decides on go through the same
 * gate) and runs the kill switch (gate halted, journaled by the OMS, cancel-all everywhere). The
 * route's answers go straight to the OMS (route.setListener(oms)); the gate hears of them from the
 * OMS's events. Exposure is booked after the bytes are out (STYLE §5: slow work after the write).
 * This file decides order of hops only: the gate decides allow/deny, the OMS order state, the
 * route the bytes.
 *
 * The write budget. A create or amend the gate refuses only for RATE_LIMITED is held
 * (held-intents.ts: latest state per order wins, fair turns across strategies and markets) instead
 * of denied, unless its strategy asked not to be held; it goes out through the same hops when the
 * bucket refills: on the next intent and on every tick, held ones first. Cancels are never held:
 * they may spend the reserve that creates and amends leave, so they go first, and the OMS retries
 * the few the reserve cannot cover on its tick. Creates released in one turn and the OMS's
 * cancels of one tick go out as V2 batch requests on a route that has them. The fast path pays
 * one comparison for all this (held.size !== 0).
 */

import { INTENT_TOKEN_COST, IntentKind, asCount, createIntent, resetIntent } from '../core/index.ts';
import type { Clock, Count, OrderIntent, Price } from '../core/index.ts';
import { OmsResult } from '../oms/index.ts';
import type { Oms, OmsSender, Order, OrderEntry } from '../oms/index.ts';
import { Deny, denyName } from '../risk/index.ts';
import type { RiskGate } from '../risk/index.ts';
import type { Exchange } from '../market/index.ts';
import type { BudgetView, OrderPort, OrderView } from '../strategy/index.ts';
import { HeldIntents, HeldKind } from './held-intents.ts';
import type { HeldIntent } from './held-intents.ts';

/** Stamps the tick-to-trade probe takes around the route (the runtime's TickToTradeProbe). */
export interface RouteProbe {
  onIntent(): void;
  onExecCall(): void;
  onExecReturn(): void;
}

const NO_PROBE: RouteProbe = Object.freeze({ onIntent(): void {}, onExecCall(): void {}, onExecReturn(): void {} });

/** rest.md §9: default token cost of a GET (a reconciliation read). */
const READ_TOKEN_COST = 10;
/**
 * How often tick() checks that the gate's ledger equals the live orders, ms: once a second up to
 * LEDGER_CHECK_ORDERS live orders, less often above in proportion (at most every
 * LEDGER_CHECK_INTERVAL_MAX_MS). The check walks every live order: at 10,000 it held the loop tens
 * of ms; stretched so, it costs the loop about as much a second at any count.
 */
const LEDGER_CHECK_INTERVAL_MS = 1_000;
const LEDGER_CHECK_ORDERS = 1_000;
const LEDGER_CHECK_INTERVAL_MAX_MS = 60_000;
/** Most intents held at once (one per order, so this bounds memory, not a strategy's reach). */
const HELD_CAPACITY_DEFAULT = 100_000;
/**
 * Orders per V2 batch request. The exchange's V2 docs give no number ("scales with your tier's
 * write budget"); 20 is the older documented cap (spec/rest.md, batch create and cancel).
 */
const BATCH_ORDERS_MAX = 20;

/** What the strategy host hears of a held intent that left the queue. */
export interface HeldIntentListener {
  /** `deny`: NONE when sent (or dropped at the strategy's own cancel, `sent` false), else why it was dropped. */
  onHeldIntent(entry: Readonly<HeldIntent>, sent: boolean, deny: Deny): void;
}

/** Counters of the write-budget queue, for status and metrics. */
export interface HoldStats {
  held: number;
  heldSent: number;
  heldDropped: number;
  batchesSent: number;
  batchedOrders: number;
}

export interface RouterOptions {
  gate: RiskGate;
  oms: Oms;
  /** The default order-entry route (index 0, named routeName); its answers go to the OMS. */
  route: OrderEntry;
  /** Name of the default route (default 'rest'). */
  routeName?: string;
  /**
   * Further routes (index 1, 2, ...: FIX, the Margin route), chosen per intent by `intent.route`;
   * `exchange` (default Predictions) is the exchange the route serves.
   */
  moreRoutes?: readonly { readonly name: string; readonly entry: OrderEntry; readonly exchange?: Exchange }[];
  clock: Clock;
  probe?: RouteProbe;
  /** Most intents held for the write budget at once (default 100,000). */
  heldCapacity?: number;
  /**
   * Creates and cancels the route could only sign on the loop (its presigned signatures used up, as
   * in a burst over thousands of markets) are collected and sent at the end of the turn as V2
   * batches, one signature per 20 (exec.batchUnsigned, default true). One alone still goes out
   * singly, signed inline.
   */
  batchUnsigned?: boolean;
}

export class Router implements OrderPort, OmsSender {
  readonly gate: RiskGate;
  readonly oms: Oms;
  /** The default route (cancel-all and orders recovered from the journal go out on it). */
  readonly route: OrderEntry;
  /** Every route by index; an order keeps the route it went out on. */
  readonly routes: readonly OrderEntry[];
  readonly #routeNames: readonly string[];
  /** The exchange each route serves, by route index (the default route: Predictions). */
  readonly #routeExchanges: readonly Exchange[];
  /** The first route serving the Margin exchange; -1 when the runtime has none. */
  readonly #marginRoute: number;
  /** The OMS result of the last cancel / amend / decrease (OmsResult), for logs and tests. */
  lastOmsResult: OmsResult = OmsResult.OK;
  readonly #clock: Clock;
  readonly #probe: RouteProbe;
  /** The router's own record, for the cancels it sends on the OMS's behalf and for cancel-all. */
  readonly #intent: OrderIntent = createIntent();
  #ledgerCheckedMs = 0;
  #ledgerCheckEveryMs = LEDGER_CHECK_INTERVAL_MS;
  /** Ledger checks made (tick()): tests read the cadence from it. */
  ledgerChecks = 0;
  /** Creates and amends waiting for the write budget. */
  readonly held: HeldIntents;
  readonly holdStats: HoldStats = { held: 0, heldSent: 0, heldDropped: 0, batchesSent: 0, batchedOrders: 0 };
  /** Strategies (by id) that asked to be denied RATE_LIMITED rather than held. */
  readonly #noHold: boolean[] = [];
  #heldListener: HeldIntentListener | null = null;
  /** The record held intents are resubmitted with. */
  readonly #heldIntent: OrderIntent = createIntent();
  /** True inside a drain of the held queue (creates then collect into batches). */
  #draining = false;
  /** True inside the OMS's tick (its cancels then collect into batches). */
  #batchingCancels = false;
  readonly #batchCreates: Order[] = [];
  #batchCreateRoute: OrderEntry | null = null;
  readonly #batchCancels: Order[] = [];
  readonly #batchUnsigned: boolean;
  /** An end-of-turn flush of unsigned creates and cancels is scheduled (setImmediate). */
  #turnEndScheduled = false;

  constructor(options: RouterOptions) {
    this.gate = options.gate;
    this.oms = options.oms;
    this.route = options.route;
    const more = options.moreRoutes ?? [];
    this.routes = [options.route, ...more.map((route) => route.entry)];
    this.#routeNames = [options.routeName ?? 'rest', ...more.map((route) => route.name)];
    this.#routeExchanges = ['predictions', ...more.map((route) => route.exchange ?? 'predictions')];
    this.#marginRoute = this.#routeExchanges.indexOf('margin');
    this.#routeExchanges.forEach((exchange, index) => this.gate.setRouteExchange(index, exchange));
    this.#clock = options.clock;
    this.#probe = options.probe ?? NO_PROBE;
    this.held = new HeldIntents(options.heldCapacity ?? HELD_CAPACITY_DEFAULT);
    this.#batchUnsigned = options.batchUnsigned ?? true;
    this.oms.setSender(this);
    for (const route of this.routes) route.setListener(this.oms);
    // A kill switch recovered from the journal halts this run's gate until the operator releases it.
    if (this.oms.killSwitchState !== null) this.gate.kill();
  }

  // ---- the strategy's port ---------------------------------------------------------------------

  /**
   * Runs one intent of any kind. NEW: the gate's code (NONE: sent; `intent.orderHandle` set, and
   * `intent.clientOrderId` when the id is text already: a held create).
   * CANCEL / AMEND / DECREASE: NONE when sent or queued, else the gate's code or ORDER_UNKNOWN /
   * ORDER_NOT_LIVE / ORDER_BUSY (the OMS's result kept in lastOmsResult).
   */
  submit(intent: OrderIntent): Deny {
    this.#probe.onIntent();
    // Held intents were first: they take the tokens the bucket regained before this one may. While
    // the route has no presigned signature the end of the turn releases them instead, in batches.
    if (this.held.size !== 0 && !this.#draining && (!this.#batchUnsigned || this.route.createReady?.() !== false)) this.#drainHeld();
    // Held intents are kept by id text: a target named by its handle is looked for there by its text.
    if (this.held.size !== 0 && intent.kind !== IntentKind.NEW && intent.orderHandle > 0 && intent.clientOrderId === '') intent.clientOrderId = this.oms.orderByHandle(intent.orderHandle)?.clientOrderId ?? '';
    switch (intent.kind) {
      case IntentKind.NEW:
        return this.#create(intent, true);
      case IntentKind.CANCEL:
        if (this.held.size !== 0 && this.#cancelHeld(intent.clientOrderId)) return Deny.NONE;
        return this.#deny(this.#cancel(intent));
      case IntentKind.AMEND:
        if (this.held.size !== 0 && this.#amendHeld(intent.clientOrderId, intent.price, intent.count)) return Deny.NONE;
        return this.#deny(this.#amend(intent, intent.price, intent.count, true));
      case IntentKind.DECREASE:
        if (this.held.size !== 0 && this.#decreaseHeld(intent.clientOrderId, intent.count)) return Deny.NONE;
        return this.#deny(this.#decrease(intent, intent.count));
      default:
        // CANCEL_ALL and GROUP_CREATE are the runtime's, never a strategy's.
        return Deny.INTENT_INVALID;
    }
  }

  /** The OMS's order of this session with `handle` (OrderView.handle), or null. */
  orderByHandle(handle: number): OrderView | null {
    return this.oms.orderByHandle(handle) ?? null;
  }

  /** The text of this session's client order id with `handle` (made now). */
  clientOrderIdOf(handle: number): string {
    return handle > 0 ? this.oms.clientOrderIds.format(handle) : '';
  }

  order(clientOrderId: string): OrderView | null {
    const order = this.oms.order(clientOrderId);
    if (order !== undefined) return order;
    // A create still held is the strategy's order too (state HELD), so it can amend or cancel it.
    const held = this.held.size === 0 ? undefined : this.held.get(clientOrderId);
    return held !== undefined && held.kind === HeldKind.CREATE ? held : null;
  }

  openOrders(strategyId: number, ticker: string | null, out: OrderView[]): number {
    // Off the hot path (stop, drain, cancelAll): the OMS hands out a fresh array of its live orders.
    let n = 0;
    for (const order of this.oms.liveOrders()) {
      if (order.strategyId !== strategyId || (ticker !== null && order.ticker !== ticker)) continue;
      out[n++] = order;
    }
    if (this.held.size === 0) return n;
    const held: HeldIntent[] = [];
    const count = this.held.drain(strategyId, held);
    for (let i = 0; i < count; i++) {
      const entry = held[i]!;
      if (entry.kind === HeldKind.CREATE && (ticker === null || entry.ticker === ticker)) out[n++] = entry;
    }
    return n;
  }

  /** The write budget as a strategy sees it: tokens now, the refill, and its held intents. */
  budget(strategyId: number, out: BudgetView): BudgetView {
    const budget = this.gate.budget;
    const nowMs = this.#clock.nowMs();
    out.writeTokens = budget.writeTokens(nowMs);
    out.writeCapacity = budget.writeCapacity;
    out.writePerSecond = budget.writePerSecond;
    out.writeReserve = budget.writeReserve;
    out.held = this.held.sizeOf(strategyId);
    out.heldTotal = this.held.size;
    return out;
  }

  /** A strategy's place in the write-budget queue: held or denied when the bucket is empty, and its turns per round. */
  setHolding(strategyId: number, hold: boolean, priority: number): void {
    this.#noHold[strategyId] = !hold;
    this.held.setPriority(strategyId, priority);
  }

  /** The strategy host, told when a held intent is sent or dropped. */
  setHeldListener(listener: HeldIntentListener | null): void {
    this.#heldListener = listener;
  }

  /** The index of a route by its name ('rest', 'fix'); -1 when the runtime has no such route. */
  routeIndex(name: string): number {
    return this.#routeNames.indexOf(name);
  }

  position(subaccount: number, ticker: string): Count {
    const position = this.oms.position(subaccount, ticker);
    return asCount(position === undefined ? 0 : position.position);
  }

  // ---- commands by client order id (the runtime, tests) ----------------------------------------

  cancel(clientOrderId: string): OmsResult {
    return this.#cancel(this.#ownIntent(IntentKind.CANCEL, clientOrderId));
  }

  /** Moves a resting order to `price` with `restingCount` left resting (the wire's new total adds the filled count). */
  amend(clientOrderId: string, price: Price, restingCount: Count): OmsResult {
    return this.#amend(this.#ownIntent(IntentKind.AMEND, clientOrderId), price, restingCount, false);
  }

  decrease(clientOrderId: string, reduceBy: Count): OmsResult {
    return this.#decrease(this.#ownIntent(IntentKind.DECREASE, clientOrderId), reduceBy);
  }

  // ---- the OMS's sender ------------------------------------------------------------------------

  sendCancel(order: Readonly<Order>): void {
    this.#sendCancel(this.#intentFor(IntentKind.CANCEL, order), order as Order);
  }

  async cancelAll(subaccount: number): Promise<void> {
    const intent = resetIntent(this.#intent);
    intent.kind = IntentKind.CANCEL_ALL;
    intent.subaccount = subaccount;
    const deny = this.gate.check(intent);
    if (deny !== Deny.NONE) throw new Error(`cancel-all refused by the gate: ${denyName(deny)}`);
    // Every exchange: subaccount numbers are per exchange, and a kill must leave nothing resting on
    // either (a cancel-all where nothing rests costs one request).
    if (this.#marginRoute < 0) return this.route.cancelAll(subaccount);
    await Promise.all([this.route.cancelAll(subaccount), this.routes[this.#marginRoute].cancelAll(subaccount)]);
  }

  /** The exchange a route serves ('predictions' for an index this run does not have). */
  routeExchange(index: number): Exchange {
    return this.#routeExchanges[index] ?? 'predictions';
  }

  takeReadToken(): boolean {
    return this.gate.budget.tryTakeRead(READ_TOKEN_COST, this.#clock.nowMs());
  }

  /** A read takeReadToken() paid for was answered or failed. */
  readSettled(): void {
    this.gate.budget.settleRead(READ_TOKEN_COST);
  }

  /** An order route's write exchange ended (RestOrderEntry.setWriteAnswerHook): the write budget caps its mirror first. */
  onWriteAnswer(): void {
    this.gate.budget.onWriteAnswer(this.#clock.nowMs());
  }

  // ---- kill switch, stop, tick -----------------------------------------------------------------

  /**
   * Kill switch (an operator or a risk breach): the gate halts (only cancels pass from now on), the
   * OMS journals it durably so a restart stays halted until released, and every subaccount in use
   * is cancelled (retried from the tick when refused).
   */
  async killSwitch(reason: string, source = 'operator'): Promise<void> {
    this.oms.recordKill(reason, source);
    this.gate.kill();
    this.#dropAllHeld(Deny.KILL_SWITCH);
    await this.oms.cancelEverything();
  }

  /** The stop path: halts the gate for the rest of this process and cancels everything, journaling no kill. */
  async cancelAllForStop(_reason: string): Promise<void> {
    this.gate.kill();
    this.#dropAllHeld(Deny.KILL_SWITCH);
    await this.oms.cancelEverything();
  }

  /** The operator's release (journaled); the caller sets the trading state again. */
  releaseKillSwitch(by: string): void {
    if (this.oms.releaseKill(by)) this.gate.releaseKillSwitch();
  }

  /** The coarse tick: the OMS's, and about once a second the check that the gate's ledger equals the live orders. */
  tick(): ReturnType<Oms['tick']> {
    const nowMs = this.#clock.nowMs();
    if (nowMs - this.#ledgerCheckedMs >= this.#ledgerCheckEveryMs) {
      this.#ledgerCheckedMs = nowMs;
      const live = this.oms.liveOrders();
      this.gate.assertLedger(live);
      this.#ledgerCheckEveryMs = Math.min(LEDGER_CHECK_INTERVAL_MAX_MS, LEDGER_CHECK_INTERVAL_MS * Math.max(1, live.length / LEDGER_CHECK_ORDERS));
      this.ledgerChecks++;
    }
    // The cancels the OMS retries now go out as batches; then held intents get what is left.
    this.#batchingCancels = true;
    let round: ReturnType<Oms['tick']>;
    try {
      round = this.oms.tick();
    } finally {
      this.#batchingCancels = false;
      this.#flushCancels();
    }
    if (this.held.size !== 0) this.#drainHeld();
    this.holdStats.held = this.held.size;
    return round;
  }

  /** The index of the route a Margin market's orders go out on by default; -1 without one. */
  get marginRoute(): number {
    return this.#marginRoute;
  }

  // ---- the hops --------------------------------------------------------------------------------

  #create(intent: OrderIntent, mayHold: boolean): Deny {
    const gate = this.gate;
    // The default route (0) means "the market's exchange's own route": a Margin market's order goes
    // out on the Margin route. A route named explicitly is kept; the gate denies it when it serves
    // another exchange (ROUTE_EXCHANGE_MISMATCH).
    if (this.#marginRoute > 0) {
      const info = gate.markets.registry.at(intent.market);
      if (info !== undefined && info.exchange === 'margin') {
        if (intent.route === 0) intent.route = this.#marginRoute;
        // A strategy's order group is a Predictions group (the runtime creates none on Margin): a
        // Margin order goes without it rather than naming a group its exchange does not have.
        intent.orderGroup = -1;
      }
    }
    const route = intent.route >= 0 && intent.route < this.routes.length ? this.routes[intent.route] : undefined;
    if (route === undefined) return Deny.INTENT_INVALID; // before the gate: a refused intent spends no token
    // A burst past the presigned signatures would sign each create on this loop (~1 ms each): hold
    // it instead, and the end of the turn sends the held creates as batches, one signature per 20.
    if (mayHold && this.#batchUnsigned && route.createBatch !== undefined && route.createReady !== undefined && !route.createReady() && this.#noHold[intent.strategyId] !== true && !this.held.full) {
      const deny = this.#holdCreateChecked(intent);
      if (deny === Deny.NONE) this.#scheduleTurnEnd();
      return deny;
    }
    // Requests already wait for every connection (a venue answering slower than we send): sent now,
    // this one would wait past the transport's bound and be refused unsent. Held, it goes out when a
    // connection frees, and a newer state of its order replaces it meanwhile.
    if (mayHold && route.saturated?.() === true && this.#noHold[intent.strategyId] !== true && !this.held.full) return this.#holdCreateChecked(intent);
    const deny = gate.check(intent);
    if (deny !== Deny.NONE) {
      if (deny === Deny.RATE_LIMITED && mayHold && this.#noHold[intent.strategyId] !== true) return this.#holdCreate(intent);
      return deny;
    }
    const market = gate.markets.at(intent.market)!; // check() denies an unknown market
    const group = intent.orderGroup >= 0 ? gate.groups.at(intent.orderGroup) : undefined;
    // A held create goes out under the id its strategy was given when it was held.
    const held = this.#heldCounter !== 0;
    const order = this.oms.accept(intent, market.ticker, group === undefined ? null : group.id, held ? intent.clientOrderId : '', this.#heldCounter);
    intent.orderHandle = order.handle; // the id's text is not made here: the strategy asks for it if it wants it
    if (this.#draining && route.createBatch !== undefined) {
      this.#collectCreate(route, order);
    } else {
      this.#probe.onExecCall();
      try {
        route.create(order);
      } catch (error) {
        this.oms.createFailed(order, error);
      }
      this.#probe.onExecReturn();
    }
    gate.onOrderChange(order);
    return Deny.NONE;
  }

  #cancel(intent: OrderIntent): OmsResult {
    const oms = this.oms;
    const ready = oms.readyToCancel(intent.clientOrderId, intent.orderHandle);
    if (ready !== OmsResult.READY) return ready;
    return this.#sendCancel(intent, oms.target!);
  }

  #sendCancel(intent: OrderIntent, order: Order): OmsResult {
    completeFrom(intent, order, IntentKind.CANCEL);
    if (this.gate.check(intent) !== Deny.NONE) {
      this.oms.cancelDeferred(order); // retried from the tick
      return OmsResult.RISK_DENIED;
    }
    this.oms.cancelSent(order);
    const route = this.#routeOf(order);
    if (route.cancelBatch !== undefined && (this.#batchingCancels || (this.#batchUnsigned && route.cancelReady?.(order) === false))) {
      // In the OMS's tick, or one the route would sign on the loop: sent in a batch (the tick's own, or the turn's end).
      this.#batchCancels.push(order);
      if (!this.#batchingCancels) this.#scheduleTurnEnd();
      return OmsResult.OK;
    }
    this.#probe.onExecCall();
    // By the order where the route can: its venue id written as bytes, answered by its handle.
    if (route.cancelOrder !== undefined) route.cancelOrder(order);
    else route.cancel(order.orderId, order.subaccount);
    this.#probe.onExecReturn();
    return OmsResult.OK;
  }

  #amend(intent: OrderIntent, price: Price, restingCount: Count, mayHold: boolean): OmsResult {
    const oms = this.oms;
    const ready = oms.readyToChange(intent.clientOrderId, intent.orderHandle);
    if (ready !== OmsResult.READY) return ready;
    const order = oms.target!;
    completeFrom(intent, order, IntentKind.AMEND);
    intent.price = price;
    intent.count = restingCount;
    const mayHoldHere = mayHold && this.#noHold[order.strategyId] !== true && !this.held.full;
    // Saturated route: held as a create is (#create), checked now, its tokens spent when it goes.
    const saturated = mayHoldHere && this.#routeOf(order).saturated?.() === true;
    const deny = saturated ? this.gate.checkWithoutBudget(intent) : this.gate.check(intent);
    if (saturated || deny !== Deny.NONE) {
      if ((deny !== Deny.NONE && deny !== Deny.RATE_LIMITED) || !mayHoldHere) return OmsResult.RISK_DENIED;
      intent.clientOrderId = order.clientOrderId; // held intents are kept by the id's text
      this.held.holdAmend(intent, order.ticker, order.orderId, this.#clock.nowMs());
      this.holdStats.held = this.held.size;
      return OmsResult.QUEUED;
    }
    oms.amendSent(order, price, restingCount);
    this.#probe.onExecCall();
    this.#routeOf(order).amend(order.orderId, order.ticker, order.side, price, asCount(order.filledCount + restingCount), order.subaccount);
    this.#probe.onExecReturn();
    return OmsResult.OK;
  }

  /**
   * Keep-warm only: the reads an amend of our order `handle` makes on its way to the route (the
   * OMS's lookup by handle, the intent filled from the order, the hold checks, the route's
   * saturation), then the gate's quiet check (RiskGate.rehearse), so the next real amend finds
   * this router's, the OMS's and the route's own state in cache. Nothing is sent, held, taken or
   * booked. False when the order is not one an amend could go to now.
   */
  rehearseAmend(intent: OrderIntent, handle: number): boolean {
    const oms = this.oms;
    if (oms.readyToChange('', handle) !== OmsResult.READY) return false;
    const order = oms.target!;
    completeOwnAmend(intent, order);
    const mayHold = this.#noHold[order.strategyId] !== true && !this.held.full;
    this.#rehearsedSaturated = mayHold && this.#routeOf(order).saturated?.() === true;
    this.gate.rehearse(intent);
    return true;
  }

  /** What the last rehearseAmend read of the route's saturation (kept so the read is not dropped). */
  #rehearsedSaturated = false;

  #decrease(intent: OrderIntent, reduceBy: Count): OmsResult {
    const oms = this.oms;
    const ready = oms.readyToChange(intent.clientOrderId, intent.orderHandle);
    if (ready !== OmsResult.READY) return ready;
    const order = oms.target!;
    completeFrom(intent, order, IntentKind.DECREASE);
    intent.count = reduceBy;
    if (this.gate.check(intent) !== Deny.NONE) return OmsResult.RISK_DENIED;
    oms.decreaseSent(order);
    this.#probe.onExecCall();
    this.#routeOf(order).decrease(order.orderId, reduceBy, order.subaccount);
    this.#probe.onExecReturn();
    return OmsResult.OK;
  }

  // ---- the write-budget queue -------------------------------------------------------------------

  /** Counter of the id a held create reserved, read by oms.accept while that create is resubmitted (0 otherwise). */
  #heldCounter = 0;

  /**
   * Holds a create the budget could pay for but the route cannot sign off the loop: the gate's
   * other checks run now (a refused one is denied as usual) without spending a token, which the
   * release spends.
   */
  #holdCreateChecked(intent: OrderIntent): Deny {
    const deny = this.gate.checkWithoutBudget(intent);
    if (deny !== Deny.NONE) return deny;
    return this.#holdCreate(intent);
  }

  #holdCreate(intent: OrderIntent): Deny {
    if (this.held.full) return Deny.RATE_LIMITED;
    const market = this.gate.markets.at(intent.market)!; // the gate denied nothing before the budget
    const clientOrderId = this.oms.reserveClientOrderId();
    this.held.holdCreate(intent, market.ticker, clientOrderId, this.oms.clientOrderIds.counter, this.#clock.nowMs());
    intent.clientOrderId = clientOrderId;
    // No OMS order yet, so no handle: a caller's reused record may still name an earlier order.
    intent.orderHandle = 0;
    this.holdStats.held = this.held.size;
    return Deny.NONE;
  }

  /** A cancel of an order with a held entry: the entry goes. True when nothing is left to send (it was a create). */
  #cancelHeld(clientOrderId: string): boolean {
    const entry = this.held.get(clientOrderId);
    if (entry === undefined) return false;
    this.held.remove(entry);
    this.#notifyHeld(entry, false, Deny.NONE);
    return entry.kind === HeldKind.CREATE;
  }

  /** A newer amend of an order with a held entry rewrites it in place (latest wins, the turn is kept). */
  #amendHeld(clientOrderId: string, price: Price, restingCount: Count): boolean {
    const entry = this.held.get(clientOrderId);
    if (entry === undefined) return false;
    entry.price = price;
    entry.count = restingCount;
    return true;
  }

  /** A decrease of an order with a held entry shrinks what will be sent; a held create decreased to nothing is dropped. */
  #decreaseHeld(clientOrderId: string, reduceBy: Count): boolean {
    const entry = this.held.get(clientOrderId);
    if (entry === undefined) return false;
    const left = entry.count - reduceBy;
    if (left > 0) {
      entry.count = asCount(left);
      return true;
    }
    if (entry.kind === HeldKind.AMEND) return false; // nothing left resting: the decrease itself goes out
    this.held.remove(entry);
    this.#notifyHeld(entry, false, Deny.NONE);
    return true;
  }

  /**
   * Sends held intents in turn while the bucket holds the next one's cost. Each goes through the
   * same hops as a fresh intent (the gate may now deny it for another reason: it is dropped with
   * that code). Creates sent in one drain go out as batches.
   */
  #drainHeld(): void {
    const held = this.held;
    const budget = this.gate.budget;
    this.#draining = true;
    try {
      for (let guard = held.size; guard > 0; guard--) {
        const entry = held.peek();
        if (entry === null) break;
        const kind = entry.kind === HeldKind.CREATE ? IntentKind.NEW : IntentKind.AMEND;
        if (!budget.canTakeWrite(INTENT_TOKEN_COST[kind]!, false, this.#clock.nowMs())) break;
        // Requests already wait for a connection: sent now, this one would wait too (and past the
        // transport's bound, be refused); held, a newer state of its order still replaces it.
        if (this.routes[entry.route]?.saturated?.() === true) break;
        held.release(entry);
        // canTakeWrite said yes on this same turn, so RATE_LIMITED cannot come back; any other code drops it.
        const deny = this.#resubmit(entry);
        this.#notifyHeld(entry, deny === Deny.NONE, deny);
      }
    } finally {
      this.#draining = false;
      this.#flushCreates();
      this.holdStats.held = held.size;
    }
  }

  #resubmit(entry: HeldIntent): Deny {
    const intent = resetIntent(this.#heldIntent);
    intent.market = entry.market;
    intent.side = entry.side;
    intent.price = entry.price;
    intent.count = entry.count;
    intent.postOnly = entry.postOnly;
    intent.reduceOnly = entry.reduceOnly;
    intent.timeInForce = entry.timeInForce;
    intent.subaccount = entry.subaccount;
    intent.orderGroup = entry.orderGroup;
    intent.strategyId = entry.strategyId;
    intent.route = entry.route;
    intent.clientOrderId = entry.clientOrderId;
    if (entry.kind === HeldKind.AMEND) {
      intent.kind = IntentKind.AMEND;
      return this.#deny(this.#amend(intent, entry.price, entry.count, false));
    }
    intent.kind = IntentKind.NEW;
    this.#heldCounter = entry.counter;
    try {
      return this.#create(intent, false);
    } finally {
      this.#heldCounter = 0;
    }
  }

  #notifyHeld(entry: HeldIntent, sent: boolean, deny: Deny): void {
    if (sent) this.holdStats.heldSent++;
    else this.holdStats.heldDropped++;
    this.holdStats.held = this.held.size;
    this.#heldListener?.onHeldIntent(entry, sent, deny);
  }

  /** Kill switch and stop: nothing held may go out any more. */
  #dropAllHeld(deny: Deny): void {
    if (this.held.size === 0) return;
    const entries: HeldIntent[] = [];
    const count = this.held.drain(-1, entries);
    for (let i = 0; i < count; i++) {
      this.held.remove(entries[i]!);
      this.#notifyHeld(entries[i]!, false, deny);
    }
  }

  #collectCreate(route: OrderEntry, order: Order): void {
    if (this.#batchCreateRoute !== route) this.#flushCreates();
    this.#batchCreateRoute = route;
    this.#batchCreates.push(order);
    if (this.#batchCreates.length >= BATCH_ORDERS_MAX) this.#flushCreates();
  }

  /** Creates collected in a drain: one alone as a plain create, more as one batch request. */
  #flushCreates(): void {
    const orders = this.#batchCreates;
    const route = this.#batchCreateRoute;
    if (orders.length === 0 || route === null) return;
    this.#probe.onExecCall();
    try {
      // One alone goes out on the single endpoint (signed inline when no presigned signature is left).
      if (orders.length === 1) route.create(orders[0]!);
      else {
        route.createBatch!(orders);
        this.holdStats.batchesSent++;
        this.holdStats.batchedOrders += orders.length;
      }
    } catch (error) {
      for (const order of orders) this.oms.createFailed(order, error);
    }
    this.#probe.onExecReturn();
    orders.length = 0;
    this.#batchCreateRoute = null;
  }

  /** Once per turn: the unsigned creates held and the cancels collected in it go out after the turn's other work. */
  #scheduleTurnEnd(): void {
    if (this.#turnEndScheduled) return;
    this.#turnEndScheduled = true;
    setImmediate(() => {
      this.#turnEndScheduled = false;
      this.#flushCancels();
      if (this.held.size !== 0 && !this.#draining) this.#drainHeld();
      this.holdStats.held = this.held.size;
    });
  }

  /** The OMS's cancels of one tick (or unsigned ones of one turn), grouped by route and subaccount, batch by batch. */
  #flushCancels(): void {
    const orders = this.#batchCancels;
    if (orders.length === 0) return;
    const groups = new Map<OrderEntry, Map<number, Order[]>>();
    for (const order of orders) {
      const route = this.#routeOf(order);
      let bySubaccount = groups.get(route);
      if (bySubaccount === undefined) groups.set(route, (bySubaccount = new Map()));
      let list = bySubaccount.get(order.subaccount);
      if (list === undefined) bySubaccount.set(order.subaccount, (list = []));
      list.push(order);
    }
    orders.length = 0;
    for (const [route, bySubaccount] of groups) {
      for (const [subaccount, list] of bySubaccount) {
        for (let start = 0; start < list.length; start += BATCH_ORDERS_MAX) {
          const chunk = list.slice(start, start + BATCH_ORDERS_MAX);
          if (chunk.length === 1) route.cancel(chunk[0]!.orderId, subaccount);
          else {
            route.cancelBatch!(chunk.map((order) => order.orderId), subaccount);
            this.holdStats.batchesSent++;
            this.holdStats.batchedOrders += chunk.length;
          }
        }
      }
    }
  }

  /** The route an order went out on; the default one for an index this run does not have (a journal's). */
  #routeOf(order: Readonly<Order>): OrderEntry {
    const route = this.routes[order.route];
    return route === undefined ? this.route : route;
  }

  /** The router's own intent for `order`: by its handle when it has one (no id string made), else its text. */
  #intentFor(kind: IntentKind, order: Readonly<Order>): OrderIntent {
    const handle = order.handle;
    const intent = this.#ownIntent(kind, handle > 0 ? '' : order.clientOrderId);
    intent.orderHandle = handle;
    return intent;
  }

  #ownIntent(kind: IntentKind, clientOrderId: string): OrderIntent {
    const intent = resetIntent(this.#intent);
    intent.kind = kind;
    intent.clientOrderId = clientOrderId;
    return intent;
  }

  #deny(result: OmsResult): Deny {
    this.lastOmsResult = result;
    if (result === OmsResult.OK || result === OmsResult.QUEUED) return Deny.NONE;
    if (result === OmsResult.RISK_DENIED) {
      const deny = this.gate.lastDeny;
      return deny === Deny.NONE ? Deny.INTENT_INVALID : deny;
    }
    if (result === OmsResult.ORDER_UNKNOWN) return Deny.ORDER_UNKNOWN;
    if (result === OmsResult.ORDER_NOT_LIVE) return Deny.ORDER_NOT_LIVE;
    if (result === OmsResult.ORDER_BUSY) return Deny.ORDER_BUSY;
    return Deny.INTENT_INVALID;
  }
}

/**
 * The fields of a request about an existing order come from the OMS's order, whoever filled the
 * intent: the gate checks what the venue will see. The caller sets price and count after.
 */
/**
 * `intent` as a quiet rehearsal's amend of our `order` to its own price and count, named by its
 * handle (Router.rehearseAmend, and the keep-warm's real-gate amend without a router).
 */
export function completeOwnAmend(intent: OrderIntent, order: Readonly<Order>): void {
  completeFrom(intent, order, IntentKind.AMEND);
  intent.orderHandle = order.handle;
  intent.clientOrderId = '';
  intent.route = order.route;
}

function completeFrom(intent: OrderIntent, order: Readonly<Order>, kind: IntentKind): void {
  intent.kind = kind;
  intent.market = order.market;
  intent.side = order.side;
  intent.price = order.price;
  intent.count = asCount(order.remainingCount);
  intent.prevPrice = order.price;
  intent.prevCount = asCount(order.remainingCount);
  intent.postOnly = order.postOnly;
  intent.reduceOnly = order.reduceOnly;
  intent.timeInForce = order.timeInForce;
  intent.subaccount = order.subaccount;
  intent.orderGroup = order.groupHandle;
  intent.strategyId = order.strategyId;
}
