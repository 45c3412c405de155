/**
 * Market activity: a seeded, deterministic flow of other participants trading through the same
 * engine as separate users, so the simulator's books move and trade like a live venue. Makers
 * quote a few levels each side around a fair value that drifts by a random walk; takers now and
 * then cross the spread with small IOC orders. The server drives it with step(nowMs, maxBookUpdates)
 * at whatever rate it wants (>= 50,000 book updates per second in process).
 *
 * It owns the synthetic users, their quotes and the fair values; it never touches engine
 * internals (public API only), never reads the wall clock and never uses Math.random: the same
 * seed, catalog and call sequence give the same events.
 */

import type { Centicents, Count, Price } from '../../core/index.ts';
import type { PriceGrid } from '../../core/index.ts';
import { SeededRandom, isSimError } from '../engine/index.ts';
import type { CreateOrderParams, Market, Order, SimEngine } from '../engine/index.ts';

export interface MarketActivityOptions {
  seed: number;
  /** Markets to animate; default: every market active at construction. */
  tickers?: readonly string[];
  /** Synthetic market makers (shared by all markets). Default 3. */
  makers?: number;
  /** Resting quotes per maker per side per market. Default 3. */
  quotesPerSide?: number;
  /** Chance per action that a taker crosses, in 1/1000. Default 60. */
  takerPerMille?: number;
  /** Chance per action that the fair value moves one grid level, in 1/1000. Default 80. */
  driftPerMille?: number;
  /** Quote size range, whole contracts. Default 1..50. */
  quoteContractsMin?: number;
  quoteContractsMax?: number;
  /** User id prefix for the synthetic participants. Default "sim-activity". */
  userPrefix?: string;
}

/** Cash each synthetic participant gets per exchange index: large enough never to run dry. */
const PARTICIPANT_CASH = 10_000_000_000_000 as Centicents; // $1,000,000,000
const EXCHANGE_INDEXES = [0, 2, 3];

class MarketFlow {
  readonly market: Market;
  /** Fair value as a level of `grid` (carried across a regrid). */
  fairLevel: number;
  /** The level the fair value reverts to (the catalog's initial_fair_price). */
  anchorLevel: number;
  grid: PriceGrid;
  /** quotes[maker][side]: resting quote orders, oldest first. */
  readonly quotes: Order[][][];

  constructor(market: Market, grid: PriceGrid, makers: number) {
    this.market = market;
    this.grid = grid;
    const fair = market.spec.initialFairPrice;
    const level = grid.levelOf(grid.snap(fair, 'nearest'));
    this.fairLevel = level === -1 ? grid.levelCount >> 1 : level;
    this.anchorLevel = this.fairLevel;
    this.quotes = [];
    for (let m = 0; m < makers; m++) this.quotes.push([[], []]);
  }
}

export class MarketActivity {
  readonly userIds: readonly string[];
  readonly #engine: SimEngine;
  readonly #random: SeededRandom;
  readonly #flows: MarketFlow[];
  readonly #makerIds: string[];
  readonly #takerIds: string[];
  readonly #quotesPerSide: number;
  readonly #takerPerMille: number;
  readonly #driftPerMille: number;
  readonly #sizeMin: number;
  readonly #sizeSpan: number;
  // One reused request record: the engine copies what it keeps.
  readonly #params: CreateOrderParams;
  #actions = 0;

  constructor(engine: SimEngine, options: MarketActivityOptions) {
    this.#engine = engine;
    this.#random = new SeededRandom(options.seed);
    const makers = options.makers ?? 3;
    const prefix = options.userPrefix ?? 'sim-activity';
    this.#quotesPerSide = options.quotesPerSide ?? 3;
    this.#takerPerMille = options.takerPerMille ?? 60;
    this.#driftPerMille = options.driftPerMille ?? 80;
    const min = options.quoteContractsMin ?? 1;
    const max = options.quoteContractsMax ?? 50;
    this.#sizeMin = min;
    this.#sizeSpan = Math.max(1, max - min + 1);
    this.#makerIds = [];
    this.#takerIds = [];
    for (let m = 0; m < makers; m++) this.#makerIds.push(`${prefix}-maker-${m}`);
    for (let t = 0; t < 2; t++) this.#takerIds.push(`${prefix}-taker-${t}`);
    this.userIds = [...this.#makerIds, ...this.#takerIds];
    for (const userId of this.userIds) {
      engine.addUser(userId, { keepHistory: false });
      for (const index of EXCHANGE_INDEXES) engine.deposit(userId, 0, index, PARTICIPANT_CASH);
    }
    const tickers = options.tickers ?? engine.markets().filter((m) => m.status === 'active').map((m) => m.ticker);
    this.#flows = [];
    for (const ticker of tickers) {
      const market = engine.getMarket(ticker);
      if (market === undefined) throw new Error(`MarketActivity: unknown market ${ticker}`);
      this.#flows.push(new MarketFlow(market, gridOf(market), makers));
    }
    this.#params = {
      ticker: '', side: 'bid', price: 0 as Price, count: 0 as Count, timeInForce: 'good_till_canceled',
      selfTradePrevention: 'maker', clientOrderId: null, postOnly: true, subaccount: 0,
    };
  }

  /** Actions taken so far (quotes, cancels, takers, drifts). */
  get actionCount(): number {
    return this.#actions;
  }

  /**
   * Acts until at least `maxBookUpdates` book deltas were emitted (or a bounded number of actions
   * produced none, e.g. every market closed). Returns the book deltas produced. `nowMs` is the
   * caller's clock; the engine stamps events with its own injected clock.
   */
  step(nowMs: number, maxBookUpdates: number): number {
    void nowMs;
    const engine = this.#engine;
    const start = engine.bookUpdateCount;
    const flows = this.#flows;
    if (flows.length === 0 || maxBookUpdates <= 0) return 0;
    const actionBudget = maxBookUpdates * 4 + 16;
    for (let i = 0; i < actionBudget && engine.bookUpdateCount - start < maxBookUpdates; i++) {
      const flow = flows[this.#random.nextInt(flows.length)];
      if (flow.market.status !== 'active') continue;
      this.#act(flow);
    }
    return engine.bookUpdateCount - start;
  }

  #act(flow: MarketFlow): void {
    this.#actions++;
    const random = this.#random;
    if (flow.grid !== gridOf(flow.market)) this.#regrid(flow);
    const roll = random.nextInt(1000);
    if (roll < this.#driftPerMille) {
      const levels = flow.grid.levelCount;
      // Mean-reverting walk: the further from the anchor, the likelier a step back toward it, so
      // a long run keeps prices plausible instead of pinning them at the edges.
      const distance = flow.fairLevel - flow.anchorLevel;
      const towardPerMille = 500 + Math.min(400, Math.floor((Math.abs(distance) * 4000) / levels));
      const toward = random.nextInt(1000) < towardPerMille;
      const step = distance === 0 ? (random.nextInt(2) === 0 ? -1 : 1) : (distance > 0) === toward ? -1 : 1;
      const next = flow.fairLevel + step;
      const low = Math.floor(levels * 0.03);
      const high = levels - 1 - low;
      flow.fairLevel = next < low ? low : next > high ? high : next;
      return;
    }
    if (roll < this.#driftPerMille + this.#takerPerMille) {
      this.#take(flow);
      return;
    }
    this.#requote(flow);
  }

  /** A maker refreshes one side: drops its stalest quote when full, then quotes near fair value. */
  #requote(flow: MarketFlow): void {
    const random = this.#random;
    const maker = random.nextInt(this.#makerIds.length);
    const sideCode = random.nextInt(2);
    const quotes = flow.quotes[maker][sideCode];
    for (let i = quotes.length - 1; i >= 0; i--) if (quotes[i].status !== 'resting') quotes.splice(i, 1);
    const userId = this.#makerIds[maker];
    if (quotes.length >= this.#quotesPerSide) {
      const stale = quotes.shift() as Order;
      this.#engine.cancelOrder(userId, stale.orderId);
    }
    const grid = flow.grid;
    const spread = 1 + random.nextInt(3);
    const depth = random.nextInt(6);
    let level = sideCode === 0 ? flow.fairLevel - spread - depth : flow.fairLevel + spread + depth;
    // Never cross the book: post-only quotes would be cancelled anyway, this keeps them resting.
    const market = flow.market;
    if (sideCode === 0) {
      const ask = market.bestAsk();
      if (ask !== 0) level = Math.min(level, grid.levelOf(ask) - 1);
    } else {
      const bid = market.bestBid();
      if (bid !== 0) level = Math.max(level, grid.levelOf(bid) + 1);
    }
    if (level < 0 || level >= grid.levelCount) return;
    const params = this.#params;
    params.ticker = market.ticker;
    params.side = sideCode === 0 ? 'bid' : 'ask';
    params.price = grid.priceAt(level);
    params.count = this.#size();
    params.timeInForce = 'good_till_canceled';
    params.postOnly = true;
    params.selfTradePrevention = 'maker';
    const result = this.#engine.createOrder(userId, params);
    if (!isSimError(result) && result.order.status === 'resting') quotes.push(result.order);
  }

  /** A taker crosses the spread for part of the best level with an IOC. */
  #take(flow: MarketFlow): void {
    const random = this.#random;
    const market = flow.market;
    const buy = random.nextInt(2) === 0;
    const price = buy ? market.bestAsk() : market.bestBid();
    if (price === 0) return;
    const available = buy ? market.bestAskSize() : market.bestBidSize();
    const want = this.#size();
    const params = this.#params;
    params.ticker = market.ticker;
    params.side = buy ? 'bid' : 'ask';
    params.price = price;
    params.count = (want < available ? want : available) as Count;
    params.timeInForce = 'immediate_or_cancel';
    params.postOnly = false;
    params.selfTradePrevention = 'taker_at_cross';
    this.#engine.createOrder(this.#takerIds[random.nextInt(this.#takerIds.length)], params);
  }

  #size(): Count {
    const random = this.#random;
    const whole = this.#sizeMin + random.nextInt(this.#sizeSpan);
    // One quote in ten carries a fractional part: the exchange trades in 0.01 contract steps.
    const cents = random.nextInt(10) === 0 ? random.nextInt(100) : 0;
    return (whole * 100 + cents) as Count;
  }

  /** The market moved to a finer grid: carry the fair value to the same price on the new grid. */
  #regrid(flow: MarketFlow): void {
    const price = flow.grid.priceAt(flow.fairLevel);
    const anchor = flow.grid.priceAt(flow.anchorLevel);
    flow.grid = gridOf(flow.market);
    const level = flow.grid.levelOf(flow.grid.snap(price, 'nearest'));
    flow.fairLevel = level === -1 ? flow.grid.levelCount >> 1 : level;
    const anchorLevel = flow.grid.levelOf(flow.grid.snap(anchor, 'nearest'));
    flow.anchorLevel = anchorLevel === -1 ? flow.fairLevel : anchorLevel;
  }
}

function gridOf(market: Market): PriceGrid {
  return market.grid;
}
