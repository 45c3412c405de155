/**
 * The context a strategy acts through: place, cancel, amend and decrease orders, read books,
 * positions and its own open orders, the time, its logger and its validated params. Every order
 * action fills the context's one reused OrderIntent and hands it to OrderPort.submit (risk gate,
 * then OMS) and returns the gate's Deny code, NONE on accept; nothing is allocated per call.
 * A context only acts for its own strategy: its own markets, subaccount, order group and orders.
 * After the strategy stops, every action is refused with TRADING_HALTED.
 * This file owns the context; it never decides what to trade and never talks to the network.
 */

import { COUNT_INVALID, TriggerAction, asCount, createIntent, createTriggerIntent, IntentKind, PRICE_INVALID } from '../core/index.ts';
import type { BookSide, Clock, Count, OrderIntent, Price } from '../core/index.ts';
import { DENY_CODE_COUNT, Deny } from '../risk/index.ts';
import type { Logger } from '../telemetry/index.ts';
import type { CandlePort, ExitTriggerAnswer, MarketPort, OrderPort, QuotePort, TriggerPort } from './ports.ts';
import { OrderFlags } from './strategy.ts';
import type { BudgetView, CandleSeriesView, ExitTriggerSpec, OrderView, QuoteView, RfqView, StrategyBook } from './strategy.ts';

const COUNT_ZERO: Count = asCount(0);

/** What a plugin sees. */
export interface StrategyContext {
  /** The configured instance id (strategies[].id). */
  readonly id: string;
  /** The host's number for this strategy (OrderIntent.strategyId, OrderView.strategyId). */
  readonly strategyId: number;
  readonly subaccount: number;
  /** Tickers this instance trades, as configured. */
  readonly markets: readonly string[];
  /** The params after validation against the plugin's schema (defaults filled, frozen). */
  readonly params: Readonly<Record<string, unknown>>;
  /** Child logger bound to the strategy id. Never log per message on the hot path. */
  readonly log: Logger;
  /** Client order id of the last accepted place(); '' before the first (made when read: prefer lastOrderHandle). */
  readonly lastClientOrderId: string;
  /** Handle (OrderView.handle) of the last accepted place(); 0 before the first, or when that order has none (held). */
  readonly lastOrderHandle: number;
  /** Wall clock (injected), Unix ms. */
  nowMs(): number;
  /** Local book of one of this strategy's markets; undefined for other tickers. */
  book(ticker: string): StrategyBook | undefined;
  /**
   * Live candlesticks of one of this strategy's markets at `intervalMinutes` (runtime config
   * workers.candleIntervalsMinutes), from the last snapshot the worker pool published: never waits.
   * null for other tickers, intervals not kept, or candles off.
   */
  candles(ticker: string, intervalMinutes: number): CandleSeriesView | null;
  /** Net signed position of this strategy's subaccount in a market (positive YES, negative NO). */
  position(ticker: string): Count;
  /** Writes this strategy's live orders (of one market, or all with null) into `out`; returns how many. */
  openOrders(ticker: string | null, out: OrderView[]): number;
  /** One of this strategy's orders by client order id or handle; null when unknown or another strategy's. */
  order(order: string | number): OrderView | null;
  /** New limit order; flags from OrderFlags (POST_ONLY, REDUCE_ONLY, IOC, FOK). */
  place(ticker: string, side: BookSide, price: Price, count: Count, flags?: number): Deny;
  /** `order`: the client order id, or the order's handle (OrderView.handle, lastOrderHandle). */
  cancel(order: string | number): Deny;
  /** New price and new resting count (the OMS adds the filled count for the wire's total). */
  amend(order: string | number, price: Price, restingCount: Count): Deny;
  decrease(order: string | number, reduceBy: Count): Deny;
  /** Cancels every live order of this strategy (one market, or all with null); returns how many cancels were accepted. */
  cancelAll(ticker: string | null): number;
  /** Handle of the last accepted quote(); -1 before the first. */
  readonly lastQuoteHandle: number;
  /** An RFQ open on the venue, or null. */
  rfq(rfqId: string): RfqView | null;
  /**
   * Quotes on an open RFQ of one of this strategy's markets: our YES bid and NO bid (0 declines
   * that side), post-only when flags has OrderFlags.POST_ONLY. Prices must be on the market's
   * grid (snap them with the book's grid). A newer quote on the same RFQ replaces the earlier one.
   */
  quote(rfqId: string, yesBid: Price, noBid: Price, flags?: number): Deny;
  /** Withdraws an open quote. */
  cancelQuote(handle: number): Deny;
  /** Confirms an accepted quote (the gate's last check first); the venue then executes it. */
  confirmQuote(handle: number): Deny;
  /** One of this strategy's quotes by handle; null when unknown or another strategy's. */
  quoteOf(handle: number): QuoteView | null;
  /** Writes this strategy's quotes not yet closed into `out`; returns how many. */
  openQuotes(out: QuoteView[]): number;
  /** Withdraws every open quote of this strategy (one market, or all with null); returns how many cancels were accepted. */
  cancelAllQuotes(ticker: string | null): number;
  /**
   * Sets, updates or deletes an exit trigger (stop-loss / take-profit bracket, trailing stop) on
   * one of this strategy's Margin positions, through the gate's trigger checks. Off the hot path
   * (a REST round trip); the answer carries the gate's code, the venue's trigger id and state.
   */
  exitTrigger(spec: Readonly<ExitTriggerSpec>): Promise<ExitTriggerAnswer>;
  /**
   * The write budget now: tokens, capacity, refill per second, and this strategy's intents the
   * router holds until the bucket refills (onHeld tells when each is sent or dropped). One record,
   * reused: read it before the next call.
   */
  budget(): Readonly<BudgetView>;
  /**
   * With `bookUpdates: 'bestPrice'`: the next change of this market's book reaches onBook even if
   * no best price moved (once). For a decision that had to wait (an order's request in flight): it
   * is taken at the next update, as with every update delivered.
   */
  wantNextBook(ticker: string): void;
}

/** Per-binding facts the host gives a context; fixed for the life of one deployment. */
export interface ContextBinding {
  id: string;
  strategyId: number;
  subaccount: number;
  /** Gate order-group handle, -1 for none. */
  orderGroup: number;
  markets: readonly string[];
  params: Readonly<Record<string, unknown>>;
  log: Logger;
  /** The router's index of the instance's order-entry route (0: the default, REST). */
  route?: number;
}

export class BoundStrategyContext implements StrategyContext {
  readonly id: string;
  readonly strategyId: number;
  readonly subaccount: number;
  readonly markets: readonly string[];
  readonly params: Readonly<Record<string, unknown>>;
  readonly log: Logger;
  /** The last accepted place(): its id's text when it had one (held), else its handle. */
  #lastIdText = '';
  lastOrderHandle = 0;
  /** Markets whose next book change the strategy asked for (wantNextBook); the host takes each once. */
  readonly nextBookWanted = new Set<string>();
  /** Deny counts by code for this deployment (index = Deny code). */
  readonly denies = new Uint32Array(DENY_CODE_COUNT);
  /** Accepted intents by IntentKind. */
  readonly accepted = new Uint32Array(6);
  /** Accepted quotes (new). */
  quotesAccepted = 0;

  readonly #orders: OrderPort;
  readonly #quotes: QuotePort | null;
  readonly #triggers: TriggerPort | null;
  lastQuoteHandle = -1;
  readonly #quoteScratch: QuoteView[] = [];
  readonly #marketPort: MarketPort;
  readonly #candlePort: CandlePort | null;
  readonly #clock: Clock;
  readonly #orderGroup: number;
  readonly #route: number;
  readonly #intent: OrderIntent = createIntent();
  readonly #budget: BudgetView = { writeTokens: 0, writeCapacity: 0, writePerSecond: 0, writeReserve: 0, held: 0, heldTotal: 0 };
  /** ticker -> gate market handle, resolved at bind; the only tickers this context may act on. */
  readonly #handles = new Map<string, number>();
  /** Scratch list for cancelAll; grows to the largest open-order count seen, then is reused. */
  readonly #scratch: OrderView[] = [];
  #active = false;

  constructor(
    binding: ContextBinding, orders: OrderPort, marketPort: MarketPort, clock: Clock, candlePort: CandlePort | null = null, quotes: QuotePort | null = null,
    triggers: TriggerPort | null = null,
  ) {
    this.#quotes = quotes;
    this.#triggers = triggers;
    this.id = binding.id;
    this.strategyId = binding.strategyId;
    this.subaccount = binding.subaccount;
    this.markets = binding.markets;
    this.params = binding.params;
    this.log = binding.log;
    this.#orders = orders;
    this.#marketPort = marketPort;
    this.#candlePort = candlePort;
    this.#clock = clock;
    this.#orderGroup = binding.orderGroup;
    this.#route = binding.route ?? 0;
    for (const ticker of binding.markets) this.#handles.set(ticker, marketPort.marketHandle(ticker));
  }

  /** Host only: actions are refused unless active. */
  setActive(active: boolean): void {
    this.#active = active;
  }

  get active(): boolean {
    return this.#active;
  }

  get orderGroup(): number {
    return this.#orderGroup;
  }

  nowMs(): number {
    return this.#clock.nowMs();
  }

  book(ticker: string): StrategyBook | undefined {
    return this.#handles.has(ticker) ? this.#marketPort.book(ticker) : undefined;
  }

  candles(ticker: string, intervalMinutes: number): CandleSeriesView | null {
    const port = this.#candlePort;
    return port !== null && this.#handles.has(ticker) ? port.candles(ticker, intervalMinutes) : null;
  }

  position(ticker: string): Count {
    return this.#orders.position(this.subaccount, ticker);
  }

  openOrders(ticker: string | null, out: OrderView[]): number {
    return this.#orders.openOrders(this.strategyId, ticker, out);
  }

  get lastClientOrderId(): string {
    if (this.#lastIdText !== '' || this.lastOrderHandle <= 0) return this.#lastIdText;
    return this.#orders.clientOrderIdOf?.(this.lastOrderHandle) ?? '';
  }

  order(order: string | number): OrderView | null {
    const found = this.#find(order);
    return found !== null && found.strategyId === this.strategyId ? found : null;
  }

  /** An order by id text or handle, any strategy's. */
  #find(order: string | number): OrderView | null {
    if (typeof order === 'string') return this.#orders.order(order);
    return this.#orders.orderByHandle?.(order) ?? null;
  }

  wantNextBook(ticker: string): void {
    this.nextBookWanted.add(ticker);
  }

  budget(): Readonly<BudgetView> {
    return this.#orders.budget === undefined ? this.#budget : this.#orders.budget(this.strategyId, this.#budget);
  }

  place(ticker: string, side: BookSide, price: Price, count: Count, flags: number = OrderFlags.NONE): Deny {
    if (!this.#active) return this.#count(Deny.TRADING_HALTED);
    const handle = this.#handles.get(ticker);
    // A ticker outside this strategy's configuration, or one the runtime never registered.
    if (handle === undefined || handle < 0) return this.#count(Deny.MARKET_UNKNOWN);
    const intent = this.#intent;
    intent.kind = IntentKind.NEW;
    intent.market = handle;
    intent.side = side;
    intent.price = price;
    intent.count = count;
    intent.prevPrice = PRICE_INVALID;
    intent.prevCount = COUNT_ZERO;
    intent.postOnly = (flags & OrderFlags.POST_ONLY) !== 0;
    intent.reduceOnly = (flags & OrderFlags.REDUCE_ONLY) !== 0;
    intent.timeInForce =
      (flags & OrderFlags.IOC) !== 0 ? 'immediate_or_cancel' : (flags & OrderFlags.FOK) !== 0 ? 'fill_or_kill' : 'good_till_canceled';
    intent.subaccount = this.subaccount;
    intent.orderGroup = this.#orderGroup;
    intent.strategyId = this.strategyId;
    intent.clientOrderId = '';
    intent.orderHandle = 0; // the reused record's last target; a held create gets none
    intent.route = this.#route;
    const deny = this.#orders.submit(intent);
    if (deny === Deny.NONE) {
      this.#lastIdText = intent.clientOrderId;
      this.lastOrderHandle = intent.orderHandle;
      this.accepted[IntentKind.NEW]++;
      return deny;
    }
    return this.#count(deny);
  }

  cancel(order: string | number): Deny {
    return this.#modify(IntentKind.CANCEL, order, PRICE_INVALID, COUNT_ZERO);
  }

  amend(order: string | number, price: Price, restingCount: Count): Deny {
    return this.#modify(IntentKind.AMEND, order, price, restingCount);
  }

  decrease(order: string | number, reduceBy: Count): Deny {
    return this.#modify(IntentKind.DECREASE, order, PRICE_INVALID, reduceBy);
  }

  cancelAll(ticker: string | null): number {
    const out = this.#scratch;
    const n = this.#orders.openOrders(this.strategyId, ticker, out);
    let accepted = 0;
    for (let i = 0; i < n; i++) {
      if (this.#cancelOrder(out[i]) === Deny.NONE) accepted++;
    }
    return accepted;
  }

  /**
   * Host only: cancels through the gate even after the strategy is stopped (stop and redeploy
   * must be able to take its orders down). Returns how many cancels were accepted.
   */
  cancelAllForShutdown(): number {
    const out = this.#scratch;
    const n = this.#orders.openOrders(this.strategyId, null, out);
    let accepted = 0;
    for (let i = 0; i < n; i++) {
      const order = out[i];
      // An order with a request in flight (pending cancel) is left to finish; a later pass retries.
      if (this.#fillModify(IntentKind.CANCEL, order, PRICE_INVALID, COUNT_ZERO) && this.#orders.submit(this.#intent) === Deny.NONE) accepted++;
    }
    return accepted;
  }

  // ---- quotes on RFQs ----------------------------------------------------------------------------

  rfq(rfqId: string): RfqView | null {
    return this.#quotes === null ? null : this.#quotes.rfq(rfqId);
  }

  quote(rfqId: string, yesBid: Price, noBid: Price, flags: number = OrderFlags.NONE): Deny {
    if (!this.#active) return this.#count(Deny.TRADING_HALTED);
    const port = this.#quotes;
    if (port === null) return this.#count(Deny.INTENT_INVALID);
    const rfq = port.rfq(rfqId);
    if (rfq === null) return this.#count(Deny.RFQ_UNKNOWN);
    // Only RFQs on this strategy's own markets (it has their books).
    if (!this.#handles.has(rfq.marketTicker)) return this.#count(Deny.MARKET_UNKNOWN);
    const deny = port.quote(this.strategyId, this.subaccount, rfqId, yesBid, noBid, (flags & OrderFlags.POST_ONLY) !== 0);
    if (deny !== Deny.NONE) return this.#count(deny);
    this.lastQuoteHandle = port.lastQuoteHandle;
    this.quotesAccepted++;
    return deny;
  }

  cancelQuote(handle: number): Deny {
    if (!this.#active) return this.#count(Deny.TRADING_HALTED);
    return this.#cancelQuoteAnyway(handle);
  }

  confirmQuote(handle: number): Deny {
    if (!this.#active) return this.#count(Deny.TRADING_HALTED);
    const port = this.#quotes;
    if (port === null) return this.#count(Deny.INTENT_INVALID);
    const deny = port.confirmQuote(this.strategyId, handle);
    return deny === Deny.NONE ? deny : this.#count(deny);
  }

  quoteOf(handle: number): QuoteView | null {
    const quote = this.#quotes === null ? null : this.#quotes.quoteView(handle);
    return quote !== null && quote.strategyId === this.strategyId ? quote : null;
  }

  openQuotes(out: QuoteView[]): number {
    return this.#quotes === null ? 0 : this.#quotes.openQuotes(this.strategyId, out);
  }

  cancelAllQuotes(ticker: string | null): number {
    if (!this.#active) return 0;
    return this.#cancelQuotes(ticker);
  }

  /** Host only: withdraws every open quote even after the strategy is stopped. */
  cancelQuotesForShutdown(): number {
    return this.#cancelQuotes(null);
  }

  #cancelQuotes(ticker: string | null): number {
    const port = this.#quotes;
    if (port === null) return 0;
    const out = this.#quoteScratch;
    const n = port.openQuotes(this.strategyId, out);
    let accepted = 0;
    for (let i = 0; i < n; i++) {
      const quote = out[i];
      if (quote.status !== 'open' || (ticker !== null && quote.ticker !== ticker)) continue;
      if (this.#cancelQuoteAnyway(quote.handle) === Deny.NONE) accepted++;
    }
    return accepted;
  }

  #cancelQuoteAnyway(handle: number): Deny {
    const port = this.#quotes;
    if (port === null) return this.#count(Deny.INTENT_INVALID);
    const deny = port.cancelQuote(this.strategyId, handle);
    return deny === Deny.NONE ? deny : this.#count(deny);
  }

  #cancelOrder(order: OrderView): Deny {
    if (!this.#active) return this.#count(Deny.TRADING_HALTED);
    if (!this.#fillModify(IntentKind.CANCEL, order, PRICE_INVALID, COUNT_ZERO)) return this.#count(Deny.MARKET_UNKNOWN);
    return this.#submitModify(IntentKind.CANCEL);
  }

  #modify(kind: IntentKind, target: string | number, price: Price, count: Count): Deny {
    if (!this.#active) return this.#count(Deny.TRADING_HALTED);
    const order = this.#find(target);
    // Another strategy's order, or one the OMS never had: a caller bug, reported as a value.
    if (order === null || order.strategyId !== this.strategyId) return this.#count(Deny.ORDER_UNKNOWN);
    if (!this.#fillModify(kind, order, price, count)) return this.#count(Deny.MARKET_UNKNOWN);
    return this.#submitModify(kind);
  }

  #submitModify(kind: IntentKind): Deny {
    const deny = this.#orders.submit(this.#intent);
    if (deny === Deny.NONE) {
      this.accepted[kind]++;
      return deny;
    }
    return this.#count(deny);
  }

  /** Fills the intent for an action on an existing order; false when its market has no handle. */
  #fillModify(kind: IntentKind, order: OrderView, price: Price, count: Count): boolean {
    const handle = this.#handles.get(order.ticker) ?? this.#marketPort.marketHandle(order.ticker);
    if (handle < 0) return false;
    const intent = this.#intent;
    intent.kind = kind;
    intent.market = handle;
    intent.side = order.side;
    intent.price = kind === IntentKind.AMEND ? price : order.price;
    intent.count = count;
    intent.prevPrice = order.price;
    intent.prevCount = asCount(order.remainingCount);
    // An amend keeps the order's post-only flag so the gate still checks the new price against the book.
    intent.postOnly = order.postOnly;
    intent.reduceOnly = false;
    intent.timeInForce = 'good_till_canceled';
    intent.subaccount = order.subaccount;
    intent.orderGroup = this.#orderGroup;
    intent.strategyId = this.strategyId;
    // By handle when the order has one: its id's string is never made for a cancel or an amend.
    const orderHandle = order.handle;
    intent.orderHandle = orderHandle;
    intent.clientOrderId = orderHandle > 0 ? '' : order.clientOrderId;
    return true;
  }

  // ---- exit triggers (Margin) -------------------------------------------------------------------

  async exitTrigger(spec: Readonly<ExitTriggerSpec>): Promise<ExitTriggerAnswer> {
    if (!this.#active) return denied(this.#count(Deny.TRADING_HALTED));
    const port = this.#triggers;
    if (port === null) return denied(this.#count(Deny.INTENT_INVALID));
    const market = this.#handles.get(spec.ticker);
    if (market === undefined || market < 0) return denied(this.#count(Deny.MARKET_UNKNOWN));
    // A fresh record per write: the answer comes after an await, when another write may be under way.
    const intent = createTriggerIntent();
    intent.action = spec.action === 'update' ? TriggerAction.UPDATE : spec.action === 'delete' ? TriggerAction.DELETE : TriggerAction.SET;
    intent.market = market;
    intent.subaccount = this.subaccount;
    intent.isolated = spec.isolated === true;
    intent.kind = spec.kind ?? 'bracket';
    intent.stopLossPrice = spec.stopLossPrice ?? PRICE_INVALID;
    intent.takeProfitPrice = spec.takeProfitPrice ?? PRICE_INVALID;
    intent.trailAmount = spec.trailAmount ?? PRICE_INVALID;
    intent.trailBps = spec.trailBps ?? 0;
    intent.count = spec.count ?? COUNT_INVALID;
    intent.anchorOrderId = spec.anchorOrderId ?? '';
    intent.clientTriggerId = spec.clientTriggerId ?? '';
    intent.triggerId = spec.triggerId ?? '';
    intent.strategyId = this.strategyId;
    const answer = await port.submit(intent);
    if (answer.deny !== Deny.NONE) this.#count(answer.deny);
    return answer;
  }

  #count(deny: Deny): Deny {
    this.denies[deny]++;
    return deny;
  }
}

function denied(deny: Deny): ExitTriggerAnswer {
  return { deny, triggerId: '', state: '', error: '' };
}
