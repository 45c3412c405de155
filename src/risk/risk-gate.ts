/**
 * The pre-trade risk gate: the only way to an order (DESIGN rule 2). `check(intent)` is
 * synchronous, does no I/O, allocates nothing and returns a Deny code; on a deny it also fills the
 * one reused `detail` record (what was compared, the limit, the actual value). On NONE it takes the
 * intent's write tokens, the only state a check changes, so an accepted intent has paid for its
 * request and a denied one has taken nothing.
 *
 * Checks run in the fixed order of CHECK_ORDER (deny.ts); the first failing one wins:
 *   intent shape -> kill switch -> trading state (halted; reducing: only position-reducing orders)
 *   -> subaccount (0-63, restricted key's lock) -> market known, open -> route's exchange (NEW)
 *   -> book synced, not stale
 *   -> price (range, band, tick) -> count (positive, increment, max) -> order notional
 *   -> reduce-only -> worst-case position (market, subaccount) -> resting notional -> open orders
 *   -> portfolio snapshot age -> worst-case loss (subaccount, event) -> post-only cross vs local book -> self-cross vs own resting -> order group -> rate tokens.
 * NEW and AMEND run all of them. CANCEL and CANCEL_ALL run shape, subaccount and rate (they may
 * spend the cancel reserve and pass the kill switch: they only ever reduce risk). DECREASE runs
 * shape, subaccount, count and rate (no reserve). GROUP_CREATE runs kill switch, halted,
 * subaccount, count (the contracts limit), group cap and rate.
 *
 * A Margin market (perpetual) branches once, after the kill switch and halted checks, to its own
 * order (MARGIN_CHECK_ORDER): tick instead of grid, no $1 cap, notional price x count on both
 * sides, reduce-only must be IOC/FOK, and the margin checks at the mark (notional risk limit,
 * initial margin against the subaccount's Margin balance, leverage); exposure in MarginExposure,
 * whose subaccounts never mix with the Predictions ones. Exit triggers: checkTrigger
 * (TRIGGER_CHECK_ORDER).
 *
 * State the gate reads but does not decide: markets (risk-markets.ts), exposure (exposure-ledger.ts,
 * kept by the gate itself from the OMS's order events: onOrderChange, onFill, onPosition), order
 * groups (order-groups.ts, from fills and order_group_updates), rate budget (rate-budget.ts), and
 * the portfolio risk snapshot the worker pool publishes (portfolio-view.ts; only while attached).
 */

import { COUNT_INVALID, PRICE_INVALID, PRICE_ONE, TriggerAction, assert } from '../core/index.ts';
import type { BookSide, Clock, Count, ExitTriggerIntent, LiveTriggersView, Price, PriceGrid } from '../core/index.ts';
import { Deny } from './deny.ts';
import { costMicro, ExposureLedger, worstAfter, worstOf } from './exposure-ledger.ts';
import type { ExposureSlot } from './exposure-ledger.ts';
import { INTENT_TOKEN_COST, IntentKind } from '../core/index.ts';
import type { OrderIntent } from '../core/index.ts';
import { budgetOf, defaultInitialMarginPpm } from './limits.ts';
import type { RiskLimits } from './limits.ts';
import type { Exchange, MarketRegistry } from '../market/index.ts';
import { MarginExposure, marginNotional } from './margin-exposure.ts';
import type { MarginSlot } from './margin-exposure.ts';
import { OrderBookings } from './order-bookings.ts';
import type { BookedOrder } from './order-bookings.ts';
import { QuoteBookings } from './quote-bookings.ts';
import type { BookedQuote } from './quote-bookings.ts';
import { OrderGroups } from './order-groups.ts';
import type { PortfolioView } from './portfolio-view.ts';
import { QUOTE_TOKEN_COST, QuoteAction } from './quote-intent.ts';
import type { QuoteIntent } from './quote-intent.ts';
import { RateBudget } from './rate-budget.ts';
import { RiskMarkets } from './risk-markets.ts';
import type { BookView, RiskMarket, RiskMarketOptions } from './risk-markets.ts';

import { TradingState } from './trading-state.ts';

/**
 * Machine-readable detail of the last deny. One record per gate, overwritten on every deny and
 * untouched on NONE; read it right after the check that denied. `subject` is a constant string.
 */
export class DenyDetail {
  code: Deny = Deny.NONE;
  /** What was compared: 'limits.orderCountMax', 'book.bestAsk', 'own.bestAsk', 'intent.price', ... */
  subject = '';
  /** The limit or reference value (units of the subject: Count, Price, micro-dollars, tokens). */
  limit = 0;
  /** The intent's value that broke it (same units). */
  actual = 0;
}

/** `order_group_updates` as the feed decodes it (its OrderGroupUpdateRecord satisfies it). */
export interface OrderGroupUpdate {
  readonly eventType: 'created' | 'triggered' | 'reset' | 'deleted' | 'limit_updated';
  readonly orderGroupId: string;
  readonly contractsLimit: Count; // COUNT_INVALID unless created / limit_updated
}

export interface RiskGateOptions {
  limits: RiskLimits;
  /** The one market registry (shared with the feed); default a new one. */
  markets?: MarketRegistry;
  /**
   * Read once per check. Production wiring passes core's CoarseClock (a field read, refreshed by a
   * 1 ms timer): bench/risk shows a wall-clock read per check costs more than the whole check.
   */
  clock: Clock;
  /** Initial trading state (config risk.tradingState); ACTIVE by default. */
  tradingState?: TradingState;
  /** Told after every verdict (the tick-to-trade probe stamps it); none by default. */
  verdictProbe?: VerdictProbe | null;
  /** The portfolio risk snapshot (worker pool); null (default): no portfolio checks. */
  portfolio?: PortfolioView | null;
}

/** What the gate tells a latency probe: one call per check, after the verdict. */
export interface VerdictProbe {
  onVerdict(): void;
}

const NO_VERDICT_PROBE: VerdictProbe = { onVerdict: () => {} };

/** The write-budget step of a check: tokens taken (check), skipped (checkWithoutBudget), only read (rehearse). */
const enum BudgetStep { TAKE, SKIP, READ }

/** Write tokens of an exit-trigger request (set, update, delete): priced as an order (the docs give none). */
export const TRIGGER_TOKEN_COST = 10;

/** Live bracket triggers a cross (non-isolated) position holds (interface-spec Limits). */
export const CROSS_BRACKETS_MAX = 20;

/** Room for route indexes before setRouteExchange grows the table. */
const ROUTES_INITIAL = 16;

export class RiskGate {
  readonly markets: RiskMarkets;
  readonly exposure: ExposureLedger;
  /** Margin exchange exposure: its own subaccounts, never summed with the Predictions ledger's. */
  readonly marginExposure = new MarginExposure();
  readonly groups = new OrderGroups();
  readonly #bookings = new OrderBookings();
  readonly #quoteBookings = new QuoteBookings();
  readonly budget: RateBudget;
  /** The reused detail record of the last deny. */
  readonly detail = new DenyDetail();
  /** Code of the last deny (NONE until the first). */
  lastDeny: Deny = Deny.NONE;
  /** What the write-budget step does: take (check), skip (checkWithoutBudget) or only read (rehearse). */
  #budgetStep: BudgetStep = BudgetStep.TAKE;

  readonly #limits: RiskLimits;
  readonly #clock: Clock;
  readonly #notionalOrderMaxMicro: number;
  readonly #notionalSubMaxMicro: number;
  readonly #defaultIncrement: number;
  readonly #probe: VerdictProbe;
  #lossSubMaxMicro: number;
  #lossEventMaxMicro: number;
  /**
   * This runtime's share of the account's position limits (1/100 contract): the whole limit alone,
   * a leased share in a fleet (setLimitShares; src/fleet/limit-lease.ts).
   */
  #marketPositionShare: number;
  #subaccountPositionShare: number;
  #portfolio: PortfolioView | null;
  #state: TradingState = TradingState.ACTIVE;
  #killed = false;
  /** Our quotes not yet closed, as the quote book counts them (setOpenQuotes). */
  #openQuotes = 0;
  /** Margin: available balance per Margin subaccount, centicents (0 until the runtime reads it: no margin, no new risk). */
  readonly #marginBalance = new Float64Array(64);
  /** Margin: initial-margin requirement per market handle, ppm of notional (the default until set). */
  #marginRatePpm = new Float64Array(0);
  /** Margin: notional risk limit per market handle, centicents; -1: the default (#notionalRiskLimitDefault). */
  #notionalRiskLimit = new Float64Array(0);
  #notionalRiskLimitDefault = Infinity;
  readonly #defaultMarginPpm: number;
  /** Route index -> 1 when the route serves the Margin exchange; undeclared routes are Predictions. */
  #routeMargin = new Uint8Array(ROUTES_INITIAL);

  constructor(options: RiskGateOptions) {
    this.markets = new RiskMarkets(options.markets);
    // A regrid is written once, in the registry; the ledger moves its per-level counts when told.
    this.markets.registry.onRegrid((handle, grid) => this.exposure.regrid(handle, grid));
    this.#limits = options.limits;
    this.#clock = options.clock;
    this.exposure = new ExposureLedger(this.markets);
    const budget = budgetOf(options.limits);
    this.budget = new RateBudget(budget.writePerSecond, budget.writeCapacity, options.limits.cancelReserveShare, budget.readPerSecond, options.clock.nowMs(), options.limits.arrivalSkewMs);
    this.#notionalOrderMaxMicro = options.limits.orderNotionalMax * 100;
    this.#notionalSubMaxMicro = options.limits.subaccountNotionalMax * 100;
    this.#defaultIncrement = options.limits.wholeContractsOnly ? 100 : 1;
    this.#state = options.tradingState ?? TradingState.ACTIVE;
    this.#probe = options.verdictProbe ?? NO_VERDICT_PROBE;
    this.#lossSubMaxMicro = options.limits.worstLossSubaccountMax * 100;
    this.#lossEventMaxMicro = options.limits.worstLossEventMax * 100;
    this.#marketPositionShare = options.limits.marketPositionMax;
    this.#subaccountPositionShare = options.limits.subaccountPositionMax;
    this.#portfolio = options.portfolio ?? null;
    this.#defaultMarginPpm = defaultInitialMarginPpm(options.limits);
  }

  /** The portfolio snapshot the gate reads (null: none, the portfolio checks are skipped). */
  get portfolio(): PortfolioView | null {
    return this.#portfolio;
  }

  /** Attaches (or detaches) the portfolio snapshot; from then on a stale one denies orders that add risk. */
  setPortfolio(view: PortfolioView | null): void {
    this.#portfolio = view;
  }

  get limits(): RiskLimits {
    return this.#limits;
  }

  /**
   * Checks the position and worst-case-loss limits against a share of each (a fleet's lease),
   * never above the limit itself; a limit of 0 (off) stays off. Lowering a share below what is
   * held only blocks adding risk, as a lowered limit does. Off the hot path (the fleet's timer).
   * Units: 1/100 contract for positions, centicents for losses.
   */
  setLimitShares(marketPosition: number, subaccountPosition: number, lossSubaccount: number, lossEvent: number): void {
    const limits = this.#limits;
    this.#marketPositionShare = Math.min(marketPosition, limits.marketPositionMax);
    this.#subaccountPositionShare = Math.min(subaccountPosition, limits.subaccountPositionMax);
    // A share of 0 must still deny (0 turns the loss checks off): 1 micro-dollar is the least a check refuses above.
    this.#lossSubMaxMicro = limits.worstLossSubaccountMax === 0 ? 0 : Math.max(1, Math.min(lossSubaccount, limits.worstLossSubaccountMax) * 100);
    this.#lossEventMaxMicro = limits.worstLossEventMax === 0 ? 0 : Math.max(1, Math.min(lossEvent, limits.worstLossEventMax) * 100);
  }

  /** The shares the checks use, in setLimitShares' order and units (a loss share of 0: off). */
  limitShares(out: Float64Array): Float64Array {
    out[0] = this.#marketPositionShare;
    out[1] = this.#subaccountPositionShare;
    out[2] = Math.floor(this.#lossSubMaxMicro / 100);
    out[3] = Math.floor(this.#lossEventMaxMicro / 100);
    return out;
  }

  // ---- markets ---------------------------------------------------------------------------------

  /** Registers a market (start-up or discovery) and returns the handle intents carry. */
  addMarket(ticker: string, grid: PriceGrid, book: BookView | null, options: RiskMarketOptions = {}): number {
    const handle = this.markets.add(ticker, grid, book, options.open ?? true, options.countIncrement ?? this.#defaultIncrement);
    return handle;
  }

  marketHandle(ticker: string): number {
    return this.markets.handleOf(ticker);
  }

  setMarketOpen(handle: number, open: boolean): void {
    this.markets.registry.setOpen(handle, open);
  }

  /**
   * The market moved to a new (finer) price grid: prices are checked on it from now on, and the
   * exposure ledger moves the own resting levels the self-cross check reads.
   */
  setMarketGrid(handle: number, grid: PriceGrid): void {
    this.markets.registry.regrid(handle, grid); // the ledger hears of it through onRegrid
  }

  /** The market's close time (close_ts, Unix ms; Infinity: none): new orders at or after it are denied MARKET_NOT_OPEN. */
  setMarketCloseTime(handle: number, closeMs: number): void {
    this.markets.registry.setCloseMs(handle, closeMs);
  }

  setBook(handle: number, book: BookView | null): void {
    const market = this.markets.at(handle);
    if (market !== undefined) market.book = book;
  }

  // ---- the Margin exchange: markets, figures from venue reads (off the hot path), routes -------

  /**
   * Registers a Margin market (perpetual) with its tick (1/10,000 $) and returns its handle. Counts
   * are whole contracts (Margin markets are not fractional): options.countIncrement, when given,
   * must be a multiple of 100, which also keeps the notional price x count / 100 an exact integer.
   */
  addMarginMarket(ticker: string, tick: number, book: BookView | null, options: RiskMarketOptions = {}): number {
    assert(Number.isSafeInteger(tick) && tick > 0, 'RiskGate.addMarginMarket: tick must be a positive integer of 1/10,000 $');
    const increment = options.countIncrement ?? 100;
    assert(Number.isSafeInteger(increment) && increment > 0 && increment % 100 === 0, 'RiskGate.addMarginMarket: count increment must be whole contracts');
    const handle = this.markets.addMargin(ticker, tick, book, options.open ?? true, increment);
    if (handle >= this.#marginRatePpm.length) {
      let size = this.#marginRatePpm.length === 0 ? 16 : this.#marginRatePpm.length * 2;
      while (size <= handle) size *= 2;
      const rates = new Float64Array(size).fill(this.#defaultMarginPpm);
      rates.set(this.#marginRatePpm);
      this.#marginRatePpm = rates;
      const riskLimits = new Float64Array(size).fill(-1);
      riskLimits.set(this.#notionalRiskLimit);
      this.#notionalRiskLimit = riskLimits;
    }
    return handle;
  }

  /** A Margin market's mark price (the feed writes it to the registry; this is the same write, for wiring and tests). */
  setMarketMark(handle: number, price: Price): void {
    this.markets.registry.setMark(handle, price);
  }

  /**
   * The equity of a Margin subaccount, centicents (GET /margin/balance: account_equity), read by the
   * runtime off the hot path. The initial margin of the subaccount's worst-case positions and
   * orders at the marks must fit in it (MARGIN_INSUFFICIENT) and their notional in marginLeverageMax
   * times it (LEVERAGE_ABOVE_MAX). Equity, not the venue's available balance: that one already has
   * the margin of positions and resting orders taken out, which this check counts itself.
   */
  setMarginBalance(subaccount: number, centicents: number): void {
    assert(Number.isInteger(subaccount) && subaccount >= 0 && subaccount < 64, 'RiskGate.setMarginBalance: subaccount outside 0-63');
    assert(Number.isFinite(centicents), 'RiskGate.setMarginBalance: not a balance');
    this.#marginBalance[subaccount] = centicents;
  }

  marginBalance(subaccount: number): number {
    return this.#marginBalance[subaccount];
  }

  /**
   * Initial-margin requirement of a Margin market, parts per million of notional (from its
   * leverage estimates / risk parameters: initial = maintenance x multiplier); until set, the
   * limits' default (marginDefaultInitialMarginPpm, or 1e6 / marginLeverageMax).
   */
  setMarginRate(handle: number, initialMarginPpm: number): void {
    assert(this.markets.at(handle)?.isMargin === true, 'RiskGate.setMarginRate: not a Margin market');
    assert(Number.isFinite(initialMarginPpm) && initialMarginPpm >= 0, 'RiskGate.setMarginRate: not a rate');
    this.#marginRatePpm[handle] = initialMarginPpm;
  }

  marginRate(handle: number): number {
    return this.#marginRateOf(this.#marginRatePpm, handle);
  }

  /** GET /margin/notional_risk_limit's per-ticker value, centicents: worst-case |position| x mark above it is NOTIONAL_RISK_LIMIT. An unknown handle is ignored. */
  setNotionalRiskLimit(handle: number, centicents: number): void {
    const market = this.markets.at(handle);
    if (market === undefined) return; // the venue lists tickers the gate does not trade (handle -1)
    assert(market.isMargin, 'RiskGate.setNotionalRiskLimit: not a Margin market');
    assert(centicents >= 0, 'RiskGate.setNotionalRiskLimit: not a limit');
    this.#notionalRiskLimit[handle] = centicents;
  }

  /** GET /margin/notional_risk_limit's default, centicents, for markets without a value of their own; none (Infinity) until set. */
  setDefaultNotionalRiskLimit(centicents: number): void {
    assert(centicents >= 0, 'RiskGate.setDefaultNotionalRiskLimit: not a limit');
    this.#notionalRiskLimitDefault = centicents;
  }

  notionalRiskLimit(handle: number): number {
    const own = handle >= 0 && handle < this.#notionalRiskLimit.length ? this.#notionalRiskLimit[handle] : -1;
    return own >= 0 ? own : this.#notionalRiskLimitDefault;
  }

  /** The exchange a route (the router's index) serves; routes never declared serve Predictions. A NEW on a route of the other exchange is ROUTE_EXCHANGE_MISMATCH. */
  setRouteExchange(route: number, exchange: Exchange): void {
    assert(Number.isSafeInteger(route) && route >= 0, 'RiskGate.setRouteExchange: not a route index');
    if (route >= this.#routeMargin.length) {
      let size = this.#routeMargin.length * 2;
      while (size <= route) size *= 2;
      const routes = new Uint8Array(size);
      routes.set(this.#routeMargin);
      this.#routeMargin = routes;
    }
    this.#routeMargin[route] = exchange === 'margin' ? 1 : 0;
  }

  // ---- order groups ----------------------------------------------------------------------------

  addOrderGroup(id: string, subaccount: number, contractsLimit: number): number {
    return this.groups.add(id, subaccount, contractsLimit);
  }

  groupHandle(id: string): number {
    return this.groups.handleOf(id);
  }

  /** `order_group_updates` (websocket.md §6.7): the group caps the gate checks follow the venue's. */
  applyOrderGroupUpdate(update: OrderGroupUpdate): void {
    let handle = this.groups.handleOf(update.orderGroupId);
    const limit = update.contractsLimit !== COUNT_INVALID ? update.contractsLimit : -1;
    switch (update.eventType) {
      case 'created':
        if (handle === -1) handle = this.groups.add(update.orderGroupId, 0, limit > 0 ? limit : 0);
        else if (limit >= 0) this.groups.at(handle)!.contractsLimit = limit;
        return;
      case 'triggered':
        if (handle !== -1) this.groups.at(handle)!.triggered = true;
        return;
      case 'reset':
        if (handle !== -1) this.groups.at(handle)!.reset();
        return;
      case 'deleted':
        if (handle !== -1) this.groups.delete(handle);
        return;
      case 'limit_updated':
        if (handle !== -1 && limit >= 0) this.groups.at(handle)!.contractsLimit = limit;
        return;
    }
  }

  // ---- the OMS's order events: the gate keeps its own ledger from them -----------------------

  /** An order was sent or changed (state, remainder, price, amend target): the ledger follows by difference. */
  onOrderChange(order: BookedOrder): void {
    this.#bookings.sync(order, this.exposure, this.markets, this.marginExposure);
  }

  /** A new (de-duplicated) fill: the position moves, and the order group's matched window. */
  onFill(market: number, ticker: string, subaccount: number, side: BookSide, count: number, groupHandle: number, groupId: string | null, tsMs: number): void {
    const handle = market >= 0 ? market : this.markets.handleOf(ticker);
    if (handle >= 0) {
      // Subaccount numbers are per exchange: a Margin fill moves the Margin ledger only.
      if (this.markets.at(handle)?.isMargin === true) this.marginExposure.applyFill(handle, subaccount, side, count);
      else this.exposure.applyFill(handle, subaccount, side, count);
    }
    const group = groupHandle >= 0 ? groupHandle : groupId !== null ? this.groups.handleOf(groupId) : -1;
    if (group >= 0) this.groups.at(group)?.addMatched(count, tsMs);
  }

  /** The venue's position replaces ours (market_position, post_position, reconciliation, the journal). */
  onPosition(ticker: string, subaccount: number, position: number): void {
    const handle = this.markets.handleOf(ticker);
    if (handle < 0) return;
    if (this.markets.at(handle)!.isMargin) this.marginExposure.setPosition(handle, subaccount, position);
    else this.exposure.setPosition(handle, subaccount, position);
  }

  /** The venue answered 429: the write budget backs off. */
  onVenueRateLimited(nowMs: number): void {
    this.budget.onVenueRateLimited(nowMs);
  }

  /** An open quote was accepted, changed state or closed (the quote book): the ledger follows by difference. */
  onQuoteChange(quote: BookedQuote): void {
    this.#quoteBookings.sync(quote, this.exposure);
  }

  /** Throws when the ledgers (Predictions and Margin) are not the sum of `orders` (the OMS's live orders) and our open quotes; about once a second. */
  assertLedger(orders: Iterable<BookedOrder>): void {
    this.#bookings.assertMatches(orders, this.exposure, this.#quoteBookings, this.marginExposure);
  }

  // ---- trading state and kill switch -----------------------------------------------------------

  get tradingState(): TradingState {
    return this.#state;
  }

  setTradingState(state: TradingState): void {
    this.#state = state;
  }

  get killed(): boolean {
    return this.#killed;
  }

  /** Kill switch: halts trading; only cancels, decreases and cancel-all pass until released. */
  kill(): void {
    this.#killed = true;
    this.#state = TradingState.HALTED;
  }

  /** Operator action after a kill: the state stays HALTED until set explicitly. */
  releaseKillSwitch(): void {
    this.#killed = false;
  }

  // ---- quotes on RFQs (QUOTE_CHECK_ORDER in deny.ts) ---------------------------------------------

  /** The quote book's count of our quotes not yet closed (QUOTE_OPEN_LIMIT). */
  setOpenQuotes(count: number): void {
    this.#openQuotes = count;
  }

  /**
   * A quote action. Synchronous, no allocation; on NONE the action's write tokens are taken.
   * Each side of a NEW quote is checked as the bid it may become (YES at yesBid, NO at noBid);
   * CONFIRM checks the one side the creator took, against the position as it is now.
   */
  checkQuote(intent: Readonly<QuoteIntent>): Deny {
    const deny = this.#decideQuote(intent);
    this.#probe.onVerdict();
    return deny;
  }

  #decideQuote(intent: Readonly<QuoteIntent>): Deny {
    const action = intent.action;
    if (action === QuoteAction.CANCEL) return this.#checkQuoteCancel(intent);
    if (action !== QuoteAction.NEW && action !== QuoteAction.CONFIRM && action !== QuoteAction.RFQ_CREATE && action !== QuoteAction.ACCEPT) {
      return this.#deny(Deny.INTENT_INVALID, 'quote.action', 0, action);
    }
    if (this.#killed) return this.#deny(Deny.KILL_SWITCH, 'gate.killed', 0, 0);
    if (this.#state === TradingState.HALTED) return this.#deny(Deny.TRADING_HALTED, 'gate.tradingState', TradingState.HALTED, 0);
    // A quote only ever adds a position (the creator picks the side): never while reducing.
    if (this.#state === TradingState.REDUCING) return this.#deny(Deny.TRADING_REDUCING_ONLY, 'gate.tradingState', TradingState.REDUCING, 0);
    const denySub = this.#checkSubaccount(intent.subaccount, false);
    if (denySub !== Deny.NONE) return denySub;
    // interface-spec: a key locked to a subaccount runs the maker lifecycle only.
    if (this.#limits.restrictedSubaccount >= 0 && (action === QuoteAction.RFQ_CREATE || action === QuoteAction.ACCEPT)) {
      return this.#deny(Deny.RESTRICTED_KEY_MAKER_ONLY, 'limits.restrictedSubaccount', this.#limits.restrictedSubaccount, action);
    }
    const market = this.markets.at(intent.market);
    if (market === undefined) return this.#deny(Deny.MARKET_UNKNOWN, 'intent.market', this.markets.size, intent.market);
    // RFQs are a Predictions workflow: a Margin market is not one the quote checks know.
    if (market.isMargin) return this.#deny(Deny.MARKET_UNKNOWN, 'market.exchange', 0, intent.market);
    if (!market.open) return this.#deny(Deny.MARKET_NOT_OPEN, 'market.open', 0, 0);
    const nowMs = this.#clock.nowMs();
    if (nowMs >= market.closeMs) return this.#deny(Deny.MARKET_NOT_OPEN, 'market.closeMs', market.closeMs, nowMs);
    const book = market.book;
    const isNew = action === QuoteAction.NEW;
    if (isNew && (book === null || !book.synced)) return this.#deny(Deny.BOOK_NOT_SYNCED, 'book.synced', 0, 0);
    // The sides to check: both of a new quote (a 0 bid declines its side), the accepted one of a confirm.
    const checkYes = isNew ? intent.yesBid !== 0 : action === QuoteAction.CONFIRM ? intent.acceptedSide === 'no' : true;
    const checkNo = isNew ? intent.noBid !== 0 : action === QuoteAction.CONFIRM ? intent.acceptedSide === 'yes' : true;
    if (isNew) {
      const denyPrice = this.#checkQuotePrices(intent, market.grid);
      if (denyPrice !== Deny.NONE) return denyPrice;
    } else if (action === QuoteAction.CONFIRM && !checkYes && !checkNo) {
      return this.#deny(Deny.INTENT_INVALID, 'quote.acceptedSide', 0, 0);
    }
    const count = intent.count;
    if (!(count > 0) || !Number.isSafeInteger(count)) return this.#deny(Deny.COUNT_NOT_POSITIVE, 'intent.count', 0, count);
    const increment = market.countIncrement;
    if (count % increment !== 0) return this.#deny(Deny.COUNT_OFF_INCREMENT, 'market.countIncrement', increment, count);
    const countMax = this.#limits.orderCountMax;
    if (count > countMax) return this.#deny(Deny.COUNT_ABOVE_MAX, 'limits.orderCountMax', countMax, count);
    // Notional: the larger of what each side may cost us (a YES bid costs yesBid, a NO bid noBid).
    const yesCost = checkYes ? costMicro('bid', intent.yesBid, count) : 0;
    const noCost = checkNo ? costMicro('bid', intent.noBid, count) : 0;
    const cost = yesCost > noCost ? yesCost : noCost;
    if (cost > this.#notionalOrderMaxMicro) return this.#deny(Deny.NOTIONAL_ABOVE_MAX, 'limits.orderNotionalMax', this.#notionalOrderMaxMicro, cost);
    // Worst-case position in the market if the taken side fills on top of resting orders and the position.
    // Other open quotes are in the ledger; a confirmed quote's own booking is taken out first.
    const slot = this.exposure.slot(intent.market, intent.subaccount);
    const position = slot === null ? 0 : slot.position;
    const own = intent.handle >= 0;
    const restingBid = (slot === null ? 0 : slot.restingBid) - (own ? this.#quoteBookings.bookedBid(intent.handle) : 0);
    const restingAsk = (slot === null ? 0 : slot.restingAsk) - (own ? this.#quoteBookings.bookedAsk(intent.handle) : 0);
    const worstYes = checkYes ? worstOf(position, restingBid + count, restingAsk) : 0;
    const worstNo = checkNo ? worstOf(position, restingBid, restingAsk + count) : 0;
    const worst = worstYes > worstNo ? worstYes : worstNo;
    const positionMax = this.#marketPositionShare;
    if (worst > positionMax) return this.#deny(Deny.MARKET_POSITION_LIMIT, 'limits.marketPositionMax', positionMax, worst);
    if (isNew) {
      const resting = this.exposure.restingMicro(intent.subaccount) + cost;
      if (resting > this.#notionalSubMaxMicro) return this.#deny(Deny.SUBACCOUNT_NOTIONAL_LIMIT, 'limits.subaccountNotionalMax', this.#notionalSubMaxMicro, resting);
    }
    if (isNew && this.#openQuotes >= this.#limits.openQuotesMax) {
      return this.#deny(Deny.QUOTE_OPEN_LIMIT, 'limits.openQuotesMax', this.#limits.openQuotesMax, this.#openQuotes + 1);
    }
    if (isNew && intent.postOnly && book !== null) {
      // YES bid against the best YES ask; NO bid against the best NO ask (1 - best YES bid).
      const ask = book.bestAsk();
      if (checkYes && ask !== PRICE_INVALID && intent.yesBid >= ask) return this.#deny(Deny.POST_ONLY_CROSS, 'book.bestAsk', ask, intent.yesBid);
      const bid = book.bestBid();
      if (checkNo && bid !== PRICE_INVALID && intent.noBid >= PRICE_ONE - bid) return this.#deny(Deny.POST_ONLY_CROSS, 'book.bestBid', bid, PRICE_ONE - intent.noBid);
    }
    const tokens = QUOTE_TOKEN_COST[action];
    if (!this.budget.tryTakeWrite(tokens, false, nowMs)) return this.#deny(Deny.RATE_LIMITED, 'budget.write', this.budget.writeReserve, tokens);
    return Deny.NONE;
  }

  /** Each non-zero bid inside (0, $1), inside the grid's bands and on a tick; not both 0; the sum below $1. */
  #checkQuotePrices(intent: Readonly<QuoteIntent>, grid: PriceGrid): Deny {
    const yes = intent.yesBid;
    const no = intent.noBid;
    for (let side = 0; side < 2; side++) {
      const price = side === 0 ? yes : no;
      if (price === 0) continue; // declines the side
      if (!(price > 0 && price < PRICE_ONE) || !Number.isInteger(price)) return this.#deny(Deny.PRICE_OUT_OF_RANGE, side === 0 ? 'quote.yesBid' : 'quote.noBid', PRICE_ONE, price);
      // The grid is the YES grid: a NO bid p is a YES ask at 1 - p, on the grid when 1 - p is (the grids are symmetric).
      const yesPrice = side === 0 ? price : PRICE_ONE - price;
      if (yesPrice < grid.minPrice) return this.#deny(Deny.PRICE_OUT_OF_BAND, 'grid.minPrice', grid.minPrice, yesPrice);
      if (yesPrice > grid.maxPrice) return this.#deny(Deny.PRICE_OUT_OF_BAND, 'grid.maxPrice', grid.maxPrice, yesPrice);
      if (grid.levelOf(yesPrice as typeof yes) < 0) return this.#deny(Deny.PRICE_OFF_GRID, 'grid.levelOf', -1, yesPrice);
    }
    if (yes === 0 && no === 0) return this.#deny(Deny.QUOTE_PRICES_CROSSED, 'quote.bids', 0, 0);
    if (yes + no >= PRICE_ONE) return this.#deny(Deny.QUOTE_PRICES_CROSSED, 'quote.bids', PRICE_ONE, yes + no);
    return Deny.NONE;
  }

  #checkQuoteCancel(intent: Readonly<QuoteIntent>): Deny {
    const denySub = this.#checkSubaccount(intent.subaccount, false);
    if (denySub !== Deny.NONE) return denySub;
    const tokens = QUOTE_TOKEN_COST[QuoteAction.CANCEL];
    // Withdrawing a quote only lowers risk: like an order cancel it may spend the reserve.
    if (!this.budget.tryTakeWrite(tokens, true, this.#clock.nowMs())) return this.#deny(Deny.RATE_LIMITED, 'budget.write', 0, tokens);
    return Deny.NONE;
  }

  // ---- the check -------------------------------------------------------------------------------

  check(intent: Readonly<OrderIntent>): Deny {
    const deny = this.#decide(intent);
    this.#probe.onVerdict();
    return deny;
  }

  /**
   * Every check of check() but the write budget, and nothing taken: for a create the router holds
   * (its release runs check() and spends the tokens then).
   */
  checkWithoutBudget(intent: Readonly<OrderIntent>): Deny {
    return this.#decideWith(intent, BudgetStep.SKIP);
  }

  #decideWith(intent: Readonly<OrderIntent>, budgetStep: BudgetStep): Deny {
    this.#budgetStep = budgetStep;
    try {
      return this.#decide(intent);
    } finally {
      this.#budgetStep = BudgetStep.TAKE;
    }
  }

  /**
   * The checks of checkWithoutBudget on the gate's real state, and no trace of them: no tokens
   * taken, no verdict probed, lastDeny and detail as they were. The keep-warm dry run calls it so
   * the next real check finds this gate's own markets, ledgers and budget in cache (its shadow
   * gate warms only the code); nothing in the checks writes state but a deny's record, and the
   * write budget is only read (RateBudget.canTakeWrite, which caps the mirror by the writes in
   * flight as the next take would).
   */
  rehearse(intent: Readonly<OrderIntent>): Deny {
    const detail = this.detail;
    const lastDeny = this.lastDeny;
    const code = detail.code;
    const subject = detail.subject;
    const limit = detail.limit;
    const actual = detail.actual;
    try {
      return this.#decideWith(intent, BudgetStep.READ);
    } finally {
      this.lastDeny = lastDeny;
      detail.code = code;
      detail.subject = subject;
      detail.limit = limit;
      detail.actual = actual;
    }
  }

  #decide(intent: Readonly<OrderIntent>): Deny {
    const kind = intent.kind;
    if (kind === IntentKind.NEW || kind === IntentKind.AMEND) return this.#checkOrder(intent, kind === IntentKind.AMEND);
    if (kind === IntentKind.CANCEL || kind === IntentKind.CANCEL_ALL) return this.#checkCancel(intent, kind);
    if (kind === IntentKind.DECREASE) return this.#checkDecrease(intent);
    if (kind === IntentKind.GROUP_CREATE) return this.#checkGroupCreate(intent);
    return this.#deny(Deny.INTENT_INVALID, 'intent.kind', 0, kind);
  }

  #deny(code: Deny, subject: string, limit: number, actual: number): Deny {
    const detail = this.detail;
    detail.code = code;
    detail.subject = subject;
    detail.limit = limit;
    detail.actual = actual;
    this.lastDeny = code;
    return code;
  }

  #checkOrder(intent: Readonly<OrderIntent>, isAmend: boolean): Deny {
    const side = intent.side;
    if (side !== 'bid' && side !== 'ask') return this.#deny(Deny.INTENT_INVALID, 'intent.side', 0, 0);
    if (this.#killed) return this.#deny(Deny.KILL_SWITCH, 'gate.killed', 0, 0);
    if (this.#state === TradingState.HALTED) return this.#deny(Deny.TRADING_HALTED, 'gate.tradingState', TradingState.HALTED, 0);
    const subaccount = intent.subaccount;
    const subaccountValid = subaccount >= 0 && subaccount < 64 && Number.isInteger(subaccount);
    const market = this.markets.at(intent.market);
    // The one branch on the exchange: a Margin market keeps its exposure on its own ledger and runs
    // MARGIN_CHECK_ORDER after the checks both exchanges share.
    const margin = market !== undefined && market.isMargin;
    const slot = !subaccountValid || market === undefined ? null : margin ? this.marginExposure.slot(intent.market, subaccount) : this.exposure.slot(intent.market, subaccount);
    const nowMs = this.#clock.nowMs();
    const denyShared = this.#checkMarketAndBook(intent, isAmend, market, slot, subaccountValid, nowMs);
    if (denyShared !== Deny.NONE) return denyShared;
    const known = market!; // #checkMarketAndBook denies an unknown market and an unsynced book
    const book = known.book!;
    if (margin) return this.#checkMarginOrder(intent, isAmend, known, slot as MarginSlot | null, book, nowMs);
    const denyPrice = this.#checkPriceCount(intent, known);
    if (denyPrice !== Deny.NONE) return denyPrice;
    const denyExposure = this.#checkExposure(intent, slot as ExposureSlot | null, isAmend);
    if (denyExposure !== Deny.NONE) return denyExposure;
    if (this.#portfolio !== null) {
      const denyPortfolio = this.#checkPortfolio(this.#portfolio, intent, isAmend, nowMs);
      if (denyPortfolio !== Deny.NONE) return denyPortfolio;
    }
    const denyCross = this.#checkCross(intent, book, slot as ExposureSlot | null);
    if (denyCross !== Deny.NONE) return denyCross;
    return this.#checkGroupAndRate(intent, intent.count, nowMs);
  }

  /**
   * The checks a new order or amend runs on either exchange between the halted state and the
   * price: reducing state, subaccount and its lock, market known and open, the route serving the
   * market's exchange (a NEW), book synced and not stale.
   */
  #checkMarketAndBook(
    intent: Readonly<OrderIntent>, isAmend: boolean, market: RiskMarket | undefined, slot: ExposureSlot | MarginSlot | null, subaccountValid: boolean, nowMs: number,
  ): Deny {
    const subaccount = intent.subaccount;
    const count = intent.count;
    if (this.#state === TradingState.REDUCING && !isReducing(slot, intent.side, count, isAmend ? intent.prevCount : 0)) {
      return this.#deny(Deny.TRADING_REDUCING_ONLY, 'position', slot === null ? 0 : slot.position, count);
    }
    if (!subaccountValid) return this.#deny(Deny.SUBACCOUNT_INVALID, 'intent.subaccount', 63, subaccount);
    const locked = this.#limits.restrictedSubaccount;
    if (locked >= 0 && subaccount !== locked) return this.#deny(Deny.SUBACCOUNT_LOCKED, 'limits.restrictedSubaccount', locked, subaccount);
    if (market === undefined) return this.#deny(Deny.MARKET_UNKNOWN, 'intent.market', this.markets.size, intent.market);
    if (!market.open) return this.#deny(Deny.MARKET_NOT_OPEN, 'market.open', 0, 0);
    if (nowMs >= market.closeMs) return this.#deny(Deny.MARKET_NOT_OPEN, 'market.closeMs', market.closeMs, nowMs);
    if (!isAmend && this.#isMarginRoute(intent.route) !== market.isMargin) return this.#deny(Deny.ROUTE_EXCHANGE_MISMATCH, 'route.exchange', market.isMargin ? 1 : 0, intent.route);
    const book = market.book;
    if (book === null || !book.synced) return this.#deny(Deny.BOOK_NOT_SYNCED, 'book.synced', 0, 0);
    const staleMs = this.#limits.bookStaleMs;
    if (staleMs > 0 && nowMs - book.updatedAtMs > staleMs) return this.#deny(Deny.BOOK_STALE, 'limits.bookStaleMs', staleMs, nowMs - book.updatedAtMs);
    return Deny.NONE;
  }

  /** The last checks of a new order or amend on either exchange: its order group's cap, then the write tokens (the only state a check takes). */
  #checkGroupAndRate(intent: Readonly<OrderIntent>, count: number, nowMs: number): Deny {
    if (intent.orderGroup !== -1) {
      const denyGroup = this.#checkGroup(intent.orderGroup, count, nowMs);
      if (denyGroup !== Deny.NONE) return denyGroup;
    }
    const cost = INTENT_TOKEN_COST[intent.kind];
    if (this.#budgetStep !== BudgetStep.TAKE) {
      // A rehearsal reads the budget as the real check will (its buckets and in-flight cap), taking nothing.
      if (this.#budgetStep === BudgetStep.READ) this.budget.canTakeWrite(cost, false, nowMs);
      return Deny.NONE;
    }
    if (!this.budget.tryTakeWrite(cost, false, nowMs)) return this.#deny(Deny.RATE_LIMITED, 'budget.write', this.budget.writeReserve, cost);
    return Deny.NONE;
  }

  /** Price range, band and tick; count sign, increment and size; order notional. */
  #checkPriceCount(intent: Readonly<OrderIntent>, market: RiskMarket): Deny {
    const price = intent.price;
    if (!(price > 0 && price < PRICE_ONE) || !Number.isInteger(price)) return this.#deny(Deny.PRICE_OUT_OF_RANGE, 'intent.price', PRICE_ONE, price);
    const grid = market.grid;
    if (price < grid.minPrice) return this.#deny(Deny.PRICE_OUT_OF_BAND, 'grid.minPrice', grid.minPrice, price);
    if (price > grid.maxPrice) return this.#deny(Deny.PRICE_OUT_OF_BAND, 'grid.maxPrice', grid.maxPrice, price);
    if (grid.levelOf(price) < 0) return this.#deny(Deny.PRICE_OFF_GRID, 'grid.levelOf', -1, price);
    const count = intent.count;
    if (!(count > 0) || !Number.isSafeInteger(count)) return this.#deny(Deny.COUNT_NOT_POSITIVE, 'intent.count', 0, count);
    const increment = market.countIncrement;
    if (count % increment !== 0) return this.#deny(Deny.COUNT_OFF_INCREMENT, 'market.countIncrement', increment, count);
    const countMax = this.#limits.orderCountMax;
    if (count > countMax) return this.#deny(Deny.COUNT_ABOVE_MAX, 'limits.orderCountMax', countMax, count);
    const cost = costMicro(intent.side, price, count);
    if (cost > this.#notionalOrderMaxMicro) return this.#deny(Deny.NOTIONAL_ABOVE_MAX, 'limits.orderNotionalMax', this.#notionalOrderMaxMicro, cost);
    return Deny.NONE;
  }

  /**
   * Reduce-only, worst-case positions, resting notional, open orders. A limit already exceeded
   * (limits lowered, a venue position adopted) still lets through an intent that lowers the value.
   */
  #checkExposure(intent: Readonly<OrderIntent>, slot: ExposureSlot | null, isAmend: boolean): Deny {
    const side = intent.side;
    const position = slot === null ? 0 : slot.position;
    if (intent.reduceOnly && (side === 'bid' ? position >= 0 : position <= 0)) {
      return this.#deny(Deny.REDUCE_ONLY_NOT_REDUCING, 'position', position, intent.count);
    }
    const prevCount = isAmend ? intent.prevCount : 0;
    const worstNow = slot === null ? 0 : slot.worst;
    const worstNew = worstAfter(position, slot === null ? 0 : slot.restingBid, slot === null ? 0 : slot.restingAsk, side, intent.count - prevCount);
    const limits = this.#limits;
    if (worstNew > worstNow) {
      const marketMax = this.#marketPositionShare;
      if (worstNew > marketMax) return this.#deny(Deny.MARKET_POSITION_LIMIT, 'limits.marketPositionMax', marketMax, worstNew);
      const sum = this.exposure.worstSum(intent.subaccount) - worstNow + worstNew;
      const subaccountMax = this.#subaccountPositionShare;
      if (sum > subaccountMax) return this.#deny(Deny.SUBACCOUNT_POSITION_LIMIT, 'limits.subaccountPositionMax', subaccountMax, sum);
    }
    const costNew = costMicro(side, intent.price, intent.count);
    const costPrev = isAmend ? costMicro(side, intent.prevPrice, prevCount) : 0;
    if (costNew > costPrev) {
      const resting = this.exposure.restingMicro(intent.subaccount) - costPrev + costNew;
      if (resting > this.#notionalSubMaxMicro) return this.#deny(Deny.SUBACCOUNT_NOTIONAL_LIMIT, 'limits.subaccountNotionalMax', this.#notionalSubMaxMicro, resting);
    }
    if (!isAmend && this.exposure.openOrders >= limits.openOrdersMax) {
      return this.#deny(Deny.OPEN_ORDERS_LIMIT, 'limits.openOrdersMax', limits.openOrdersMax, this.exposure.openOrders + 1);
    }
    return Deny.NONE;
  }

  /**
   * Portfolio risk from the last published snapshot, never waiting for a newer one. What the
   * order may lose is its cost (a bid loses its YES cost if the market settles NO, an ask its NO
   * cost if YES); what changed since the snapshot is bounded by the resting cost added since it
   * was packed (ExposureLedger.addedMicro: fills only move cost from resting orders to positions,
   * cancels only lower it). A reduce-only order, or an amend that does not raise the cost, adds
   * no risk and skips these checks, so a stale snapshot never blocks reducing.
   */
  #checkPortfolio(view: PortfolioView, intent: Readonly<OrderIntent>, isAmend: boolean, nowMs: number): Deny {
    if (intent.reduceOnly) return Deny.NONE;
    const side = intent.side;
    const costNew = costMicro(side, intent.price, intent.count);
    const added = isAmend ? costNew - costMicro(side, intent.prevPrice, intent.prevCount) : costNew;
    if (added <= 0) return Deny.NONE;
    const limits = this.#limits;
    const staleMs = limits.portfolioStaleMs;
    const ageMs = nowMs - view.packedAtMs;
    if (view.generation === 0 || (staleMs > 0 && ageMs > staleMs)) return this.#deny(Deny.PORTFOLIO_RISK_STALE, 'limits.portfolioStaleMs', staleMs, ageMs);
    const subaccount = intent.subaccount;
    const exposure = this.exposure;
    const subMax = this.#lossSubMaxMicro;
    if (subMax > 0) {
      const since = exposure.addedMicro(subaccount) - view.addedAtPackMicro(subaccount);
      const loss = view.subaccountLossMicro(subaccount) + (since > 0 ? since : 0) + added;
      if (loss > subMax) return this.#deny(Deny.WORST_LOSS_SUBACCOUNT_LIMIT, 'limits.worstLossSubaccountMax', subMax, loss);
    }
    const eventMax = this.#lossEventMaxMicro;
    const event = view.eventOf(intent.market);
    // A market of no known event is bounded by its subaccount's figure only.
    if (eventMax > 0 && event >= 0) {
      // Added since the snapshot by any subaccount on any event: conservative, bounded by the debounce.
      const since = exposure.addedMicroTotal - view.addedTotalAtPackMicro;
      const loss = view.eventLossMicro(event) + (since > 0 ? since : 0) + added;
      if (loss > eventMax) return this.#deny(Deny.WORST_LOSS_EVENT_LIMIT, 'limits.worstLossEventMax', eventMax, loss);
    }
    return Deny.NONE;
  }

  /** Post-only against the local book, then self-cross against own resting orders of the same (market, subaccount). */
  #checkCross(intent: Readonly<OrderIntent>, book: BookView, slot: ExposureSlot | null): Deny {
    const price = intent.price;
    if (intent.side === 'bid') {
      if (intent.postOnly) {
        const ask = book.bestAsk();
        if (ask !== PRICE_INVALID && price >= ask) return this.#deny(Deny.POST_ONLY_CROSS, 'book.bestAsk', ask, price);
      }
      if (slot !== null && slot.askBestLevel >= 0) {
        const ownAsk = slot.grid.priceAt(slot.askBestLevel);
        if (price >= ownAsk) return this.#deny(Deny.SELF_CROSS, 'own.bestAsk', ownAsk, price);
      }
    } else {
      if (intent.postOnly) {
        const bid = book.bestBid();
        if (bid !== PRICE_INVALID && price <= bid) return this.#deny(Deny.POST_ONLY_CROSS, 'book.bestBid', bid, price);
      }
      if (slot !== null && slot.bidBestLevel >= 0) {
        const ownBid = slot.grid.priceAt(slot.bidBestLevel);
        if (price <= ownBid) return this.#deny(Deny.SELF_CROSS, 'own.bestBid', ownBid, price);
      }
    }
    return Deny.NONE;
  }

  // ---- Margin orders (MARGIN_CHECK_ORDER in deny.ts) ---------------------------------------------

  #isMarginRoute(route: number): boolean {
    return route >= 0 && route < this.#routeMargin.length && this.#routeMargin[route] === 1;
  }

  /** NEW / AMEND on a Margin market, after the checks both exchanges share (#checkMarketAndBook). */
  #checkMarginOrder(intent: Readonly<OrderIntent>, isAmend: boolean, market: RiskMarket, slot: MarginSlot | null, book: BookView, nowMs: number): Deny {
    const denyPrice = this.#checkMarginPriceCount(intent, market);
    if (denyPrice !== Deny.NONE) return denyPrice;
    const denyExposure = this.#checkMarginExposure(intent, market, slot, isAmend);
    if (denyExposure !== Deny.NONE) return denyExposure;
    const denyCross = this.#checkMarginCross(intent, book, slot);
    if (denyCross !== Deny.NONE) return denyCross;
    return this.#checkGroupAndRate(intent, intent.count, nowMs);
  }

  /** Price (> 0, on the tick, near the mark; no $1 cap), count (positive, whole contracts, max), order notional. */
  #checkMarginPriceCount(intent: Readonly<OrderIntent>, market: RiskMarket): Deny {
    const price = intent.price;
    if (!(price > 0) || !Number.isSafeInteger(price)) return this.#deny(Deny.PRICE_OUT_OF_RANGE, 'intent.price', 0, price);
    const tick = market.info.tick;
    if (price % tick !== 0) return this.#deny(Deny.PRICE_OFF_GRID, 'market.tick', tick, price);
    const bandBps = this.#limits.marginPriceBandBps;
    const mark = market.info.markPrice;
    // Without a mark the band cannot be drawn; MARGIN_MARK_UNKNOWN stops an order that adds risk later.
    if (bandBps > 0 && mark > 0) {
      const away = price > mark ? price - mark : mark - price;
      if (away * 10_000 > mark * bandBps) return this.#deny(Deny.PRICE_AWAY_FROM_MARK, 'limits.marginPriceBandBps', bandBps, (away * 10_000) / mark);
    }
    const count = intent.count;
    if (!(count > 0) || !Number.isSafeInteger(count)) return this.#deny(Deny.COUNT_NOT_POSITIVE, 'intent.count', 0, count);
    const increment = market.countIncrement;
    if (count % increment !== 0) return this.#deny(Deny.COUNT_OFF_INCREMENT, 'market.countIncrement', increment, count);
    const countMax = this.#limits.orderCountMax;
    if (count > countMax) return this.#deny(Deny.COUNT_ABOVE_MAX, 'limits.orderCountMax', countMax, count);
    // Centicents over whole contracts: $100,000 x 1M contracts is 1e15, exact; the detail reads micro-dollars like Predictions'.
    const notional = marginNotional(price, count);
    if (notional > this.#limits.orderNotionalMax) return this.#deny(Deny.NOTIONAL_ABOVE_MAX, 'limits.orderNotionalMax', this.#notionalOrderMaxMicro, notional * 100);
    return Deny.NONE;
  }

  /**
   * Reduce-only, then the risk the order adds: only when it raises the market's worst-case
   * |position| (a limit already exceeded still lets through an order that does not). A reduce-only
   * order is IOC/FOK and capped to the position by the venue, so it never adds risk.
   */
  #checkMarginExposure(intent: Readonly<OrderIntent>, market: RiskMarket, slot: MarginSlot | null, isAmend: boolean): Deny {
    const side = intent.side;
    const position = slot === null ? 0 : slot.position;
    if (intent.reduceOnly) {
      if (side === 'bid' ? position >= 0 : position <= 0) return this.#deny(Deny.REDUCE_ONLY_NOT_REDUCING, 'position', position, intent.count);
      const tif = intent.timeInForce;
      if (tif !== 'immediate_or_cancel' && tif !== 'fill_or_kill') return this.#deny(Deny.REDUCE_ONLY_RESTING, 'intent.timeInForce', 0, 0);
    } else {
      const prevCount = isAmend ? intent.prevCount : 0;
      const worstNow = slot === null ? 0 : slot.worst;
      const worstNew = worstAfter(position, slot === null ? 0 : slot.restingBid, slot === null ? 0 : slot.restingAsk, side, intent.count - prevCount);
      if (worstNew > worstNow) {
        const denyRisk = this.#checkMarginRisk(intent.subaccount, market, worstNow, worstNew);
        if (denyRisk !== Deny.NONE) return denyRisk;
      }
    }
    const openMax = this.#limits.openOrdersMax;
    const open = this.marginExposure.openOrders;
    if (!isAmend && open >= openMax) return this.#deny(Deny.OPEN_ORDERS_LIMIT, 'limits.openOrdersMax', openMax, open + 1);
    return Deny.NONE;
  }

  /**
   * The market's worst-case |position| rises from worstNow to worstNew (1/100 contract): marks
   * known, position limits, the market's notional risk limit, then over the subaccount's Margin
   * markets (a few; walked without allocating) initial margin at the mark against the subaccount's
   * equity (setMarginBalance) and notional against the leverage cap. Money in whole centicents.
   */
  #checkMarginRisk(subaccount: number, market: RiskMarket, worstNow: number, worstNew: number): Deny {
    const mark = market.info.markPrice;
    if (!(mark > 0)) return this.#deny(Deny.MARGIN_MARK_UNKNOWN, 'market.markPrice', 0, market.handle);
    const rates = this.#marginRatePpm;
    let notionalOthers = 0;
    let marginOthers = 0;
    const slots = this.marginExposure.slotsOf(subaccount);
    for (let i = 0; i < slots.length; i++) {
      const other = slots[i];
      if (other.market === market.handle || other.worst === 0) continue;
      const otherMark = this.markets.at(other.market)!.info.markPrice;
      // A position we cannot price might need any margin: no new risk until its mark is known.
      if (!(otherMark > 0)) return this.#deny(Deny.MARGIN_MARK_UNKNOWN, 'market.markPrice', 0, other.market);
      const notional = marginNotional(otherMark, other.worst);
      notionalOthers += notional;
      marginOthers += initialMargin(notional, this.#marginRateOf(rates, other.market));
    }
    const limits = this.#limits;
    const marketMax = this.#marketPositionShare;
    if (worstNew > marketMax) return this.#deny(Deny.MARKET_POSITION_LIMIT, 'limits.marketPositionMax', marketMax, worstNew);
    const worstSum = this.marginExposure.worstSum(subaccount) - worstNow + worstNew;
    const subaccountMax = this.#subaccountPositionShare;
    if (worstSum > subaccountMax) return this.#deny(Deny.SUBACCOUNT_POSITION_LIMIT, 'limits.subaccountPositionMax', subaccountMax, worstSum);
    const notional = marginNotional(mark, worstNew);
    const riskLimit = this.notionalRiskLimit(market.handle);
    if (notional > riskLimit) return this.#deny(Deny.NOTIONAL_RISK_LIMIT, 'market.notionalRiskLimit', riskLimit, notional);
    const balance = this.#marginBalance[subaccount];
    const required = marginOthers + initialMargin(notional, this.#marginRateOf(rates, market.handle));
    if (required > balance) return this.#deny(Deny.MARGIN_INSUFFICIENT, 'margin.balance', balance, required);
    const total = notionalOthers + notional;
    const leverageMax = limits.marginLeverageMax;
    if (total > leverageMax * balance) return this.#deny(Deny.LEVERAGE_ABOVE_MAX, 'limits.marginLeverageMax', leverageMax, balance > 0 ? total / balance : Infinity);
    return Deny.NONE;
  }

  /** A market registered through gate.markets directly has no rate slot: the default, never an undefined (which would pass). */
  #marginRateOf(rates: Float64Array, handle: number): number {
    return handle < rates.length ? rates[handle] : this.#defaultMarginPpm;
  }

  /** Post-only against the local book and self-cross against own resting prices: plain prices, no complement. */
  #checkMarginCross(intent: Readonly<OrderIntent>, book: BookView, slot: MarginSlot | null): Deny {
    const price = intent.price;
    if (intent.side === 'bid') {
      if (intent.postOnly) {
        const ask = book.bestAsk();
        if (ask !== PRICE_INVALID && price >= ask) return this.#deny(Deny.POST_ONLY_CROSS, 'book.bestAsk', ask, price);
      }
      if (slot !== null && slot.bestAsk !== PRICE_INVALID && price >= slot.bestAsk) return this.#deny(Deny.SELF_CROSS, 'own.bestAsk', slot.bestAsk, price);
    } else {
      if (intent.postOnly) {
        const bid = book.bestBid();
        if (bid !== PRICE_INVALID && price <= bid) return this.#deny(Deny.POST_ONLY_CROSS, 'book.bestBid', bid, price);
      }
      if (slot !== null && slot.bestBid !== PRICE_INVALID && price <= slot.bestBid) return this.#deny(Deny.SELF_CROSS, 'own.bestBid', slot.bestBid, price);
    }
    return Deny.NONE;
  }

  // ---- exit triggers (TRIGGER_CHECK_ORDER in deny.ts) --------------------------------------------

  /**
   * An exit-trigger request on a Margin position. Synchronous, no allocation; on NONE its write
   * tokens are taken. SET and UPDATE check the legs (prices on the tick, on the right side of the
   * mark), count and anchor, and (SET appends) the live triggers' limits from `live`; kill switch
   * and halted deny SETs only (a trigger only ever closes a position, so reducing lets them
   * through). DELETE removes protection and is always allowed: shape, subaccount and tokens.
   */
  checkTrigger(intent: Readonly<ExitTriggerIntent>, live: LiveTriggersView): Deny {
    const deny = this.#decideTrigger(intent, live);
    this.#probe.onVerdict();
    return deny;
  }

  #decideTrigger(intent: Readonly<ExitTriggerIntent>, live: LiveTriggersView): Deny {
    const action = intent.action;
    if (action !== TriggerAction.SET && action !== TriggerAction.UPDATE && action !== TriggerAction.DELETE) return this.#deny(Deny.INTENT_INVALID, 'trigger.action', 0, action);
    if (intent.kind !== 'bracket' && intent.kind !== 'trailing') return this.#deny(Deny.INTENT_INVALID, 'trigger.kind', 0, 0);
    if (action === TriggerAction.SET) {
      if (this.#killed) return this.#deny(Deny.KILL_SWITCH, 'gate.killed', 0, 0);
      if (this.#state === TradingState.HALTED) return this.#deny(Deny.TRADING_HALTED, 'gate.tradingState', TradingState.HALTED, 0);
    }
    const denySub = this.#checkSubaccount(intent.subaccount, false);
    if (denySub !== Deny.NONE) return denySub;
    if (action !== TriggerAction.DELETE) {
      const market = this.markets.at(intent.market);
      if (market === undefined || !market.isMargin) return this.#deny(Deny.MARKET_UNKNOWN, market === undefined ? 'intent.market' : 'market.exchange', this.markets.size, intent.market);
      const denyLegs = this.#checkTriggerLegs(intent, market);
      if (denyLegs !== Deny.NONE) return denyLegs;
      const denyCount = this.#checkTriggerCount(intent, market, live);
      if (denyCount !== Deny.NONE) return denyCount;
    }
    if (!this.budget.tryTakeWrite(TRIGGER_TOKEN_COST, false, this.#clock.nowMs())) return this.#deny(Deny.RATE_LIMITED, 'budget.write', this.budget.writeReserve, TRIGGER_TOKEN_COST);
    return Deny.NONE;
  }

  /** Mark known for bracket legs; the legs or trail of the kind; prices on the tick; count and anchor well formed. */
  #checkTriggerLegs(intent: Readonly<ExitTriggerIntent>, market: RiskMarket): Deny {
    const stop = intent.stopLossPrice;
    const take = intent.takeProfitPrice;
    const hasStop = stop !== PRICE_INVALID;
    const hasTake = take !== PRICE_INVALID;
    if (intent.kind === 'bracket') {
      if ((hasStop || hasTake) && !(market.info.markPrice > 0)) return this.#deny(Deny.MARGIN_MARK_UNKNOWN, 'market.markPrice', 0, market.handle);
      if (!hasStop && !hasTake) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.legs', 0, 0);
      if (intent.trailAmount !== PRICE_INVALID || intent.trailBps !== 0) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.trail', 0, 0);
      const tick = market.info.tick;
      if (hasStop && (!(stop > 0) || !Number.isSafeInteger(stop) || stop % tick !== 0)) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.stopLossPrice', tick, stop);
      if (hasTake && (!(take > 0) || !Number.isSafeInteger(take) || take % tick !== 0)) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.takeProfitPrice', tick, take);
    } else {
      if (hasStop || hasTake) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.legs', 0, 0);
      const amount = intent.trailAmount;
      const bps = intent.trailBps;
      const hasAmount = amount !== PRICE_INVALID;
      if (hasAmount === (bps !== 0)) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.trail', 0, 0); // exactly one of the two
      if (hasAmount && (!(amount > 0) || !Number.isSafeInteger(amount))) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.trailAmount', 0, amount);
      if (!hasAmount && (!(bps >= 1 && bps <= 9_999) || !Number.isInteger(bps))) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.trailBps', 9_999, bps);
    }
    const count = intent.count;
    const hasCount = count !== COUNT_INVALID;
    const hasAnchor = intent.anchorOrderId !== '';
    if (hasCount && (!(count > 0) || !Number.isSafeInteger(count) || count % 100 !== 0)) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.count', 100, count);
    if (hasCount && hasAnchor) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.anchorOrderId', 0, 0);
    // Isolated positions hold one trigger per kind closing in full: no count, no anchor (an append).
    if (intent.isolated && (hasCount || hasAnchor)) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.isolated', 0, 0);
    if (intent.action === TriggerAction.SET) {
      if ((hasCount || hasAnchor) && intent.clientTriggerId === '') return this.#deny(Deny.TRIGGER_INVALID, 'trigger.clientTriggerId', 0, 0);
    } else if (intent.isolated || intent.triggerId === '' || hasAnchor) {
      return this.#deny(Deny.TRIGGER_INVALID, 'trigger.triggerId', 0, 0); // UPDATE: one cross trigger by id, never re-anchored
    }
    return Deny.NONE;
  }

  /**
   * The position the trigger closes: one to close (a SET without anchor needs a position), bracket
   * legs on its losing (stop) and winning (take-profit) side of the mark, the count within it,
   * and for a cross SET that appends (count or anchor) the live triggers' room: brackets' counts
   * together within the position, 20 brackets, one trailing stop. A SET without count or anchor
   * replaces the position's trigger of its kind, so it takes no room.
   */
  #checkTriggerCount(intent: Readonly<ExitTriggerIntent>, market: RiskMarket, live: LiveTriggersView): Deny {
    const slot = this.marginExposure.slot(market.handle, intent.subaccount);
    const position = slot === null ? 0 : slot.position;
    const hasAnchor = intent.anchorOrderId !== '';
    const isSet = intent.action === TriggerAction.SET;
    if (position === 0 && !hasAnchor && isSet) return this.#deny(Deny.TRIGGER_INVALID, 'position', 0, 0);
    if (intent.kind === 'bracket') {
      const denySide = this.#checkTriggerSide(intent, market.info.markPrice, position);
      if (denySide !== Deny.NONE) return denySide;
    }
    const count = intent.count;
    const size = position < 0 ? -position : position;
    if (count !== COUNT_INVALID && count > size) return this.#deny(Deny.TRIGGER_COUNT_ABOVE_POSITION, 'position', size, count);
    if (!isSet || intent.isolated || (count === COUNT_INVALID && !hasAnchor)) return Deny.NONE;
    const handle = market.handle;
    const subaccount = intent.subaccount;
    if (intent.kind === 'bracket') {
      if (count !== COUNT_INVALID) {
        const sum = live.bracketCountSum(handle, subaccount, false) + count;
        if (sum > size) return this.#deny(Deny.TRIGGER_COUNT_ABOVE_POSITION, 'live.bracketCountSum', size, sum);
      }
      const brackets = live.bracketCount(handle, subaccount, false);
      if (brackets >= CROSS_BRACKETS_MAX) return this.#deny(Deny.TRIGGER_LIMIT, 'live.bracketCount', CROSS_BRACKETS_MAX, brackets + 1);
    } else {
      const trailing = live.trailingCount(handle, subaccount, false);
      if (trailing >= 1) return this.#deny(Deny.TRIGGER_LIMIT, 'live.trailingCount', 1, trailing + 1);
    }
    return Deny.NONE;
  }

  /** Long: stop < mark < take-profit; short: the reverse; no position yet (anchored): either, as long as the legs agree. */
  #checkTriggerSide(intent: Readonly<ExitTriggerIntent>, mark: number, position: number): Deny {
    const stop = intent.stopLossPrice;
    const take = intent.takeProfitPrice;
    const hasStop = stop !== PRICE_INVALID;
    const hasTake = take !== PRICE_INVALID;
    if (position > 0) {
      if (hasStop && stop >= mark) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.stopLossPrice', mark, stop);
      if (hasTake && take <= mark) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.takeProfitPrice', mark, take);
    } else if (position < 0) {
      if (hasStop && stop <= mark) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.stopLossPrice', mark, stop);
      if (hasTake && take >= mark) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.takeProfitPrice', mark, take);
    } else {
      const long = (!hasStop || stop < mark) && (!hasTake || take > mark);
      const short = (!hasStop || stop > mark) && (!hasTake || take < mark);
      if (!long && !short) return this.#deny(Deny.TRIGGER_INVALID, 'trigger.legs', mark, hasStop ? stop : take);
    }
    return Deny.NONE;
  }

  #checkGroup(handle: number, count: number, nowMs: number): Deny {
    const group = this.groups.at(handle);
    if (group === undefined || group.deleted) return this.#deny(Deny.ORDER_GROUP_UNKNOWN, 'intent.orderGroup', 0, handle);
    if (group.triggered) return this.#deny(Deny.ORDER_GROUP_TRIGGERED, 'group.triggered', 0, handle);
    const limit = group.contractsLimit;
    if (limit > 0) {
      const total = group.matchedInWindow(nowMs) + count;
      if (total > limit) return this.#deny(Deny.ORDER_GROUP_LIMIT, 'group.contractsLimit', limit, total);
    }
    return Deny.NONE;
  }

  #checkSubaccount(subaccount: number, allowAll: boolean): Deny {
    const locked = this.#limits.restrictedSubaccount;
    if (allowAll && subaccount === -1) {
      // "every subaccount" is a full-account key's power; a restricted key names its own.
      if (locked >= 0) return this.#deny(Deny.SUBACCOUNT_LOCKED, 'limits.restrictedSubaccount', locked, subaccount);
      return Deny.NONE;
    }
    if (!(subaccount >= 0 && subaccount < 64 && Number.isInteger(subaccount))) return this.#deny(Deny.SUBACCOUNT_INVALID, 'intent.subaccount', 63, subaccount);
    if (locked >= 0 && subaccount !== locked) return this.#deny(Deny.SUBACCOUNT_LOCKED, 'limits.restrictedSubaccount', locked, subaccount);
    return Deny.NONE;
  }

  #checkCancel(intent: Readonly<OrderIntent>, kind: IntentKind): Deny {
    const denySub = this.#checkSubaccount(intent.subaccount, kind === IntentKind.CANCEL_ALL);
    if (denySub !== Deny.NONE) return denySub;
    const cost = INTENT_TOKEN_COST[kind];
    if (!this.budget.tryTakeWrite(cost, true, this.#clock.nowMs())) return this.#deny(Deny.RATE_LIMITED, 'budget.write', 0, cost);
    return Deny.NONE;
  }

  #checkDecrease(intent: Readonly<OrderIntent>): Deny {
    const denySub = this.#checkSubaccount(intent.subaccount, false);
    if (denySub !== Deny.NONE) return denySub;
    const count = intent.count;
    if (!(count > 0) || !Number.isSafeInteger(count)) return this.#deny(Deny.COUNT_NOT_POSITIVE, 'intent.count', 0, count);
    const market = this.markets.at(intent.market);
    const increment = market === undefined ? 1 : market.countIncrement;
    if (count % increment !== 0) return this.#deny(Deny.COUNT_OFF_INCREMENT, 'market.countIncrement', increment, count);
    const cost = INTENT_TOKEN_COST[IntentKind.DECREASE];
    if (!this.budget.tryTakeWrite(cost, false, this.#clock.nowMs())) return this.#deny(Deny.RATE_LIMITED, 'budget.write', this.budget.writeReserve, cost);
    return Deny.NONE;
  }

  #checkGroupCreate(intent: Readonly<OrderIntent>): Deny {
    if (this.#killed) return this.#deny(Deny.KILL_SWITCH, 'gate.killed', 0, 0);
    if (this.#state === TradingState.HALTED) return this.#deny(Deny.TRADING_HALTED, 'gate.tradingState', TradingState.HALTED, 0);
    const denySub = this.#checkSubaccount(intent.subaccount, false);
    if (denySub !== Deny.NONE) return denySub;
    const count = intent.count;
    if (!(count > 0) || !Number.isSafeInteger(count)) return this.#deny(Deny.COUNT_NOT_POSITIVE, 'intent.count', 0, count);
    const groupsMax = this.#limits.orderGroupsMax;
    if (this.groups.live >= groupsMax) return this.#deny(Deny.ORDER_GROUP_COUNT_MAX, 'limits.orderGroupsMax', groupsMax, this.groups.live + 1);
    const cost = INTENT_TOKEN_COST[IntentKind.GROUP_CREATE];
    if (!this.budget.tryTakeWrite(cost, false, this.#clock.nowMs())) return this.#deny(Deny.RATE_LIMITED, 'budget.write', this.budget.writeReserve, cost);
    return Deny.NONE;
  }
}

/**
 * A position-reducing order: opposite the position, and small enough that it and every other
 * resting order of its side together cannot flip the position. `prevCount` is the amended order's
 * own resting count (replaced by the new count).
 */
function isReducing(slot: ExposureSlot | MarginSlot | null, side: 'bid' | 'ask', count: number, prevCount: number): boolean {
  if (slot === null) return false;
  const position = slot.position;
  if (side === 'bid') return position < 0 && slot.restingBid - prevCount + count <= -position;
  return position > 0 && slot.restingAsk - prevCount + count <= position;
}

/** Initial margin of `notional` centicents at `ppm` parts per million, rounded up to a whole centicent (an estimate of the venue's: the safe side). */
function initialMargin(notional: number, ppm: number): number {
  return Math.ceil((notional / 1_000_000) * ppm);
}
