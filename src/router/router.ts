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
 */

import { IntentKind, asCount, createIntent, resetIntent } from '../core/index.ts';
import type { Clock, Count, OrderIntent, Price } from '../core/index.ts';
import { OmsResult } from '../oms/index.ts';
import type { Oms, OmsSender, Order, OrderEntry } from '../oms/index.ts';
import { Deny, denyName } from '../risk/index.ts';
import type { RiskGate } from '../risk/index.ts';
import type { Exchange } from '../market/index.ts';
import type { OrderPort, OrderView } from '../strategy/index.ts';

/** Stamps the tick-to-trade probe takes around the route (the runtime's TickToTradeProbe). */
export interface RouteProbe {
  onIntent(): void;
  onExecCall(): void;
  onExecReturn(): void;
}

const NO_PROBE: RouteProbe = Object.freeze({ onIntent(): void {}, onExecCall(): void {}, onExecReturn(): void {} });

/** rest.md §9: default token cost of a GET (a reconciliation read). */
const READ_TOKEN_COST = 10;
/** How often tick() checks that the gate's ledger equals the live orders, ms. */
const LEDGER_CHECK_INTERVAL_MS = 1_000;

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
    this.oms.setSender(this);
    for (const route of this.routes) route.setListener(this.oms);
    // A kill switch recovered from the journal halts this run's gate until the operator releases it.
    if (this.oms.killSwitchState !== null) this.gate.kill();
  }

  // ---- the strategy's port ---------------------------------------------------------------------

  /**
   * Runs one intent of any kind. NEW: the gate's code (NONE: sent, `intent.clientOrderId` set).
   * CANCEL / AMEND / DECREASE: NONE when sent or queued, else the gate's code or ORDER_UNKNOWN /
   * ORDER_NOT_LIVE / ORDER_BUSY (the OMS's result kept in lastOmsResult).
   */
  submit(intent: OrderIntent): Deny {
    this.#probe.onIntent();
    switch (intent.kind) {
      case IntentKind.NEW:
        return this.#create(intent);
      case IntentKind.CANCEL:
        return this.#deny(this.#cancel(intent));
      case IntentKind.AMEND:
        return this.#deny(this.#amend(intent, intent.price, intent.count));
      case IntentKind.DECREASE:
        return this.#deny(this.#decrease(intent, intent.count));
      default:
        // CANCEL_ALL and GROUP_CREATE are the runtime's, never a strategy's.
        return Deny.INTENT_INVALID;
    }
  }

  order(clientOrderId: string): OrderView | null {
    return this.oms.order(clientOrderId) ?? null;
  }

  openOrders(strategyId: number, ticker: string | null, out: OrderView[]): number {
    // Off the hot path (stop, drain, cancelAll): the OMS hands out a fresh array of its live orders.
    let n = 0;
    for (const order of this.oms.liveOrders()) {
      if (order.strategyId !== strategyId || (ticker !== null && order.ticker !== ticker)) continue;
      out[n++] = order;
    }
    return n;
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
    return this.#amend(this.#ownIntent(IntentKind.AMEND, clientOrderId), price, restingCount);
  }

  decrease(clientOrderId: string, reduceBy: Count): OmsResult {
    return this.#decrease(this.#ownIntent(IntentKind.DECREASE, clientOrderId), reduceBy);
  }

  // ---- the OMS's sender ------------------------------------------------------------------------

  sendCancel(order: Readonly<Order>): void {
    this.#sendCancel(this.#ownIntent(IntentKind.CANCEL, order.clientOrderId), order as Order);
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

  // ---- kill switch, stop, tick -----------------------------------------------------------------

  /**
   * Kill switch (an operator or a risk breach): the gate halts (only cancels pass from now on), the
   * OMS journals it durably so a restart stays halted until released, and every subaccount in use
   * is cancelled (retried from the tick when refused).
   */
  async killSwitch(reason: string, source = 'operator'): Promise<void> {
    this.oms.recordKill(reason, source);
    this.gate.kill();
    await this.oms.cancelEverything();
  }

  /** The stop path: halts the gate for the rest of this process and cancels everything, journaling no kill. */
  async cancelAllForStop(_reason: string): Promise<void> {
    this.gate.kill();
    await this.oms.cancelEverything();
  }

  /** The operator's release (journaled); the caller sets the trading state again. */
  releaseKillSwitch(by: string): void {
    if (this.oms.releaseKill(by)) this.gate.releaseKillSwitch();
  }

  /** The coarse tick: the OMS's, and about once a second the check that the gate's ledger equals the live orders. */
  tick(): ReturnType<Oms['tick']> {
    const nowMs = this.#clock.nowMs();
    if (nowMs - this.#ledgerCheckedMs >= LEDGER_CHECK_INTERVAL_MS) {
      this.#ledgerCheckedMs = nowMs;
      this.gate.assertLedger(this.oms.liveOrders());
    }
    return this.oms.tick();
  }

  // ---- the hops --------------------------------------------------------------------------------

  #create(intent: OrderIntent): Deny {
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
    const deny = gate.check(intent);
    if (deny !== Deny.NONE) return deny;
    const market = gate.markets.at(intent.market)!; // check() denies an unknown market
    const group = intent.orderGroup >= 0 ? gate.groups.at(intent.orderGroup) : undefined;
    const order = this.oms.accept(intent, market.ticker, group === undefined ? null : group.id);
    intent.clientOrderId = order.clientOrderId;
    this.#probe.onExecCall();
    try {
      route.create(order);
    } catch (error) {
      this.oms.createFailed(order, error);
    }
    this.#probe.onExecReturn();
    gate.onOrderChange(order);
    return Deny.NONE;
  }

  #cancel(intent: OrderIntent): OmsResult {
    const oms = this.oms;
    const ready = oms.readyToCancel(intent.clientOrderId);
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
    this.#probe.onExecCall();
    this.#routeOf(order).cancel(order.orderId, order.subaccount);
    this.#probe.onExecReturn();
    return OmsResult.OK;
  }

  #amend(intent: OrderIntent, price: Price, restingCount: Count): OmsResult {
    const oms = this.oms;
    const ready = oms.readyToChange(intent.clientOrderId);
    if (ready !== OmsResult.READY) return ready;
    const order = oms.target!;
    completeFrom(intent, order, IntentKind.AMEND);
    intent.price = price;
    intent.count = restingCount;
    if (this.gate.check(intent) !== Deny.NONE) return OmsResult.RISK_DENIED;
    oms.amendSent(order, price, restingCount);
    this.#probe.onExecCall();
    this.#routeOf(order).amend(order.orderId, order.ticker, order.side, price, asCount(order.filledCount + restingCount), order.subaccount);
    this.#probe.onExecReturn();
    return OmsResult.OK;
  }

  #decrease(intent: OrderIntent, reduceBy: Count): OmsResult {
    const oms = this.oms;
    const ready = oms.readyToChange(intent.clientOrderId);
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

  /** The route an order went out on; the default one for an index this run does not have (a journal's). */
  #routeOf(order: Readonly<Order>): OrderEntry {
    const route = this.routes[order.route];
    return route === undefined ? this.route : route;
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
