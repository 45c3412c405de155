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
import { isSimError } from '../engine/index.ts';
import type { CreateOrderParams, Market, Order, SimEngine } from '../engine/index.ts';
import { Crowd, CrowdAction, type CrowdOptions } from './crowd.ts';

/** Crowd knobs (crowd.ts): the fair value moves one grid level per drift; sizes 1..50 contracts; users "sim-activity-...". */
export interface MarketActivityOptions extends CrowdOptions {
  /** Markets to animate; default: every market active at construction. */
  tickers?: readonly string[];
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
  readonly #crowd: Crowd;
  readonly #flows: MarketFlow[];
  // One reused request record: the engine copies what it keeps.
  readonly #params: CreateOrderParams;
  #actions = 0;

  constructor(engine: SimEngine, options: MarketActivityOptions) {
    this.#engine = engine;
    const crowd = new Crowd(options, { userPrefix: 'sim-activity', quoteContractsMax: 50 });
    this.#crowd = crowd;
    this.userIds = crowd.userIds;
    for (const userId of this.userIds) {
      engine.addUser(userId, { keepHistory: false });
      for (const index of EXCHANGE_INDEXES) engine.deposit(userId, 0, index, PARTICIPANT_CASH);
    }
    const tickers = options.tickers ?? engine.markets().filter((m) => m.status === 'active').map((m) => m.ticker);
    this.#flows = [];
    for (const ticker of tickers) {
      const market = engine.getMarket(ticker);
      if (market === undefined) throw new Error(`MarketActivity: unknown market ${ticker}`);
      this.#flows.push(new MarketFlow(market, gridOf(market), crowd.makerIds.length));
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
      const flow = flows[this.#crowd.random.nextInt(flows.length)];
      if (flow.market.status !== 'active') continue;
      this.#act(flow);
    }
    return engine.bookUpdateCount - start;
  }

  #act(flow: MarketFlow): void {
    this.#actions++;
    if (flow.grid !== gridOf(flow.market)) this.#regrid(flow);
    const action = this.#crowd.nextAction();
    if (action === CrowdAction.DRIFT) {
      const levels = flow.grid.levelCount;
      // Mean-reverting walk: the further from the anchor, the likelier a step back toward it.
      const distance = flow.fairLevel - flow.anchorLevel;
      const next = flow.fairLevel + this.#crowd.revertingStep(distance, Math.floor((Math.abs(distance) * 4000) / levels));
      const low = Math.floor(levels * 0.03);
      const high = levels - 1 - low;
      flow.fairLevel = next < low ? low : next > high ? high : next;
      return;
    }
    if (action === CrowdAction.TAKE) {
      this.#take(flow);
      return;
    }
    this.#requote(flow);
  }

  /** A maker refreshes one side: drops its stalest quote when full, then quotes near fair value. */
  #requote(flow: MarketFlow): void {
    const crowd = this.#crowd;
    const random = crowd.random;
    const maker = random.nextInt(crowd.makerIds.length);
    const sideCode = random.nextInt(2);
    const userId = crowd.makerIds[maker];
    const stale = crowd.staleQuote<Order>(flow.quotes[maker][sideCode]);
    if (stale !== null) this.#engine.cancelOrder(userId, stale.orderId);
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
    if (!isSimError(result) && result.order.status === 'resting') flow.quotes[maker][sideCode].push(result.order);
  }

  /** A taker crosses the spread for part of the best level with an IOC. */
  #take(flow: MarketFlow): void {
    const random = this.#crowd.random;
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
    const takerIds = this.#crowd.takerIds;
    this.#engine.createOrder(takerIds[random.nextInt(takerIds.length)], params);
  }

  #size(): Count {
    const random = this.#crowd.random;
    const whole = this.#crowd.wholeContracts();
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
