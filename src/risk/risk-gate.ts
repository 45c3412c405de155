/**
 * The pre-trade risk gate: the only way to an order (DESIGN rule 2). `check(intent)` is
 * synchronous, does no I/O, allocates nothing and returns a Deny code; on a deny it also fills the
 * one reused `detail` record (what was compared, the limit, the actual value). On NONE it takes the
 * intent's write tokens, the only state a check changes, so an accepted intent has paid for its
 * request and a denied one has taken nothing.
 *
 * Checks run in the fixed order of CHECK_ORDER (deny.ts); the first failing one wins:
 *   intent shape -> kill switch -> trading state (halted; reducing: only position-reducing orders)
 *   -> subaccount (0-63, restricted key's lock) -> market known, open -> book synced, not stale
 *   -> price (range, band, tick) -> count (positive, increment, max) -> order notional
 *   -> reduce-only -> worst-case position (market, subaccount) -> resting notional -> open orders
 *   -> portfolio snapshot age -> worst-case loss (subaccount, event) -> post-only cross vs local book -> self-cross vs own resting -> order group -> rate tokens.
 * NEW and AMEND run all of them. CANCEL and CANCEL_ALL run shape, subaccount and rate (they may
 * spend the cancel reserve and pass the kill switch: they only ever reduce risk). DECREASE runs
 * shape, subaccount, count and rate (no reserve). GROUP_CREATE runs kill switch, halted,
 * subaccount, count (the contracts limit), group cap and rate.
 *
 * State the gate reads but does not decide: markets (risk-markets.ts), exposure (exposure-ledger.ts,
 * kept by the gate itself from the OMS's order events: onOrderChange, onFill, onPosition), order
 * groups (order-groups.ts, from fills and order_group_updates), rate budget (rate-budget.ts), and
 * the portfolio risk snapshot the worker pool publishes (portfolio-view.ts; only while attached).
 */

import { COUNT_INVALID, PRICE_INVALID, PRICE_ONE } from '../core/index.ts';
import type { BookSide, Clock, Count, PriceGrid } from '../core/index.ts';
import { Deny } from './deny.ts';
import { costMicro, ExposureLedger, worstOf } from './exposure-ledger.ts';
import type { ExposureSlot } from './exposure-ledger.ts';
import { INTENT_TOKEN_COST, IntentKind } from '../core/index.ts';
import type { OrderIntent } from '../core/index.ts';
import { budgetOf } from './limits.ts';
import type { RiskLimits } from './limits.ts';
import type { MarketRegistry } from '../market/index.ts';
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

export class RiskGate {
  readonly markets: RiskMarkets;
  readonly exposure: ExposureLedger;
  readonly groups = new OrderGroups();
  readonly #bookings = new OrderBookings();
  readonly #quoteBookings = new QuoteBookings();
  readonly budget: RateBudget;
  /** The reused detail record of the last deny. */
  readonly detail = new DenyDetail();
  /** Code of the last deny (NONE until the first). */
  lastDeny: Deny = Deny.NONE;

  readonly #limits: RiskLimits;
  readonly #clock: Clock;
  readonly #notionalOrderMaxMicro: number;
  readonly #notionalSubMaxMicro: number;
  readonly #defaultIncrement: number;
  readonly #probe: VerdictProbe;
  readonly #lossSubMaxMicro: number;
  readonly #lossEventMaxMicro: number;
  #portfolio: PortfolioView | null;
  #state: TradingState = TradingState.ACTIVE;
  #killed = false;
  /** Our quotes not yet closed, as the quote book counts them (setOpenQuotes). */
  #openQuotes = 0;

  constructor(options: RiskGateOptions) {
    this.markets = new RiskMarkets(options.markets);
    // A regrid is written once, in the registry; the ledger moves its per-level counts when told.
    this.markets.registry.onRegrid((handle, grid) => this.exposure.regrid(handle, grid));
    this.#limits = options.limits;
    this.#clock = options.clock;
    this.exposure = new ExposureLedger(this.markets);
    const budget = budgetOf(options.limits);
    this.budget = new RateBudget(budget.writePerSecond, budget.writeCapacity, options.limits.cancelReserveShare, budget.readPerSecond, options.clock.nowMs());
    this.#notionalOrderMaxMicro = options.limits.orderNotionalMax * 100;
    this.#notionalSubMaxMicro = options.limits.subaccountNotionalMax * 100;
    this.#defaultIncrement = options.limits.wholeContractsOnly ? 100 : 1;
    this.#state = options.tradingState ?? TradingState.ACTIVE;
    this.#probe = options.verdictProbe ?? NO_VERDICT_PROBE;
    this.#lossSubMaxMicro = options.limits.worstLossSubaccountMax * 100;
    this.#lossEventMaxMicro = options.limits.worstLossEventMax * 100;
    this.#portfolio = options.portfolio ?? null;
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
    this.#bookings.sync(order, this.exposure, this.markets);
  }

  /** A new (de-duplicated) fill: the position moves, and the order group's matched window. */
  onFill(market: number, ticker: string, subaccount: number, side: BookSide, count: number, groupHandle: number, groupId: string | null, tsMs: number): void {
    const handle = market >= 0 ? market : this.markets.handleOf(ticker);
    if (handle >= 0) this.exposure.applyFill(handle, subaccount, side, count);
    const group = groupHandle >= 0 ? groupHandle : groupId !== null ? this.groups.handleOf(groupId) : -1;
    if (group >= 0) this.groups.at(group)?.addMatched(count, tsMs);
  }

  /** The venue's position replaces ours (market_position, post_position, reconciliation, the journal). */
  onPosition(ticker: string, subaccount: number, position: number): void {
    const handle = this.markets.handleOf(ticker);
    if (handle >= 0) this.exposure.setPosition(handle, subaccount, position);
  }

  /** The venue answered 429: the write budget backs off. */
  onVenueRateLimited(nowMs: number): void {
    this.budget.onVenueRateLimited(nowMs);
  }

  /** An open quote was accepted, changed state or closed (the quote book): the ledger follows by difference. */
  onQuoteChange(quote: BookedQuote): void {
    this.#quoteBookings.sync(quote, this.exposure);
  }

  /** Throws when the ledger is not the sum of `orders` (the OMS's live orders) and our open quotes; about once a second. */
  assertLedger(orders: Iterable<BookedOrder>): void {
    this.#bookings.assertMatches(orders, this.exposure, this.#quoteBookings);
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
    const positionMax = this.#limits.marketPositionMax;
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
    const slot = subaccountValid && market !== undefined ? this.exposure.slot(intent.market, subaccount) : null;
    const count = intent.count;
    const prevCount = isAmend ? intent.prevCount : 0;
    if (this.#state === TradingState.REDUCING && !isReducing(slot, side, count, prevCount)) {
      return this.#deny(Deny.TRADING_REDUCING_ONLY, 'position', slot === null ? 0 : slot.position, count);
    }
    if (!subaccountValid) return this.#deny(Deny.SUBACCOUNT_INVALID, 'intent.subaccount', 63, subaccount);
    const locked = this.#limits.restrictedSubaccount;
    if (locked >= 0 && subaccount !== locked) return this.#deny(Deny.SUBACCOUNT_LOCKED, 'limits.restrictedSubaccount', locked, subaccount);
    if (market === undefined) return this.#deny(Deny.MARKET_UNKNOWN, 'intent.market', this.markets.size, intent.market);
    if (!market.open) return this.#deny(Deny.MARKET_NOT_OPEN, 'market.open', 0, 0);
    const nowMs = this.#clock.nowMs();
    if (nowMs >= market.closeMs) return this.#deny(Deny.MARKET_NOT_OPEN, 'market.closeMs', market.closeMs, nowMs);
    const book = market.book;
    if (book === null || !book.synced) return this.#deny(Deny.BOOK_NOT_SYNCED, 'book.synced', 0, 0);
    const staleMs = this.#limits.bookStaleMs;
    if (staleMs > 0 && nowMs - book.updatedAtMs > staleMs) return this.#deny(Deny.BOOK_STALE, 'limits.bookStaleMs', staleMs, nowMs - book.updatedAtMs);
    const denyPrice = this.#checkPriceCount(intent, market);
    if (denyPrice !== Deny.NONE) return denyPrice;
    const denyExposure = this.#checkExposure(intent, slot, isAmend);
    if (denyExposure !== Deny.NONE) return denyExposure;
    if (this.#portfolio !== null) {
      const denyPortfolio = this.#checkPortfolio(this.#portfolio, intent, isAmend, nowMs);
      if (denyPortfolio !== Deny.NONE) return denyPortfolio;
    }
    const denyCross = this.#checkCross(intent, book, slot);
    if (denyCross !== Deny.NONE) return denyCross;
    if (intent.orderGroup !== -1) {
      const denyGroup = this.#checkGroup(intent.orderGroup, count, nowMs);
      if (denyGroup !== Deny.NONE) return denyGroup;
    }
    const cost = INTENT_TOKEN_COST[intent.kind];
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
    let restingBid = slot === null ? 0 : slot.restingBid;
    let restingAsk = slot === null ? 0 : slot.restingAsk;
    if (side === 'bid') restingBid += intent.count - prevCount;
    else restingAsk += intent.count - prevCount;
    const worstNow = slot === null ? 0 : slot.worst;
    const worstNew = worstOf(position, restingBid, restingAsk);
    const limits = this.#limits;
    if (worstNew > worstNow) {
      if (worstNew > limits.marketPositionMax) return this.#deny(Deny.MARKET_POSITION_LIMIT, 'limits.marketPositionMax', limits.marketPositionMax, worstNew);
      const sum = this.exposure.worstSum(intent.subaccount) - worstNow + worstNew;
      if (sum > limits.subaccountPositionMax) return this.#deny(Deny.SUBACCOUNT_POSITION_LIMIT, 'limits.subaccountPositionMax', limits.subaccountPositionMax, sum);
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
function isReducing(slot: ExposureSlot | null, side: 'bid' | 'ask', count: number, prevCount: number): boolean {
  if (slot === null) return false;
  const position = slot.position;
  if (side === 'bid') return position < 0 && slot.restingBid - prevCount + count <= -position;
  return position > 0 && slot.restingAsk - prevCount + count <= position;
}
