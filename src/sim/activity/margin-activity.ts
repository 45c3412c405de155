/**
 * Margin market activity: the Margin (perpetuals) counterpart of market-activity.ts. A seeded,
 * deterministic flow of synthetic participants trading through the MarginEngine as separate
 * users, so perpetual books move and trade. Makers quote a few levels each side in whole ticks and
 * whole contracts, post-only GTC and never crossing the book, around a fair value that walks in
 * ticks and reverts toward the catalog's starting mark within a band (default ±20% of it); takers
 * now and then cross with an IOC for part of the best level. The server drives it with
 * step(nowMs, maxBookUpdates) (server/activity-driver.ts).
 *
 * Book updates are counted as the Margin WebSocket feed would send them: it has no per-level event
 * of its own, so, like the feed (server/ws/margin-feed.ts), this module watches every animated
 * market with a MarginBookLevels and, on each order event the engine emits, counts the levels that
 * event changed (one orderbook_delta each: a quote added or cancelled, a level shrunk or emptied
 * by a fill). Events of real users in between steps are diffed too (so a step counts only its own)
 * but not reported.
 *
 * It owns the synthetic users (marked forgetHistoryOf, so their ended orders and fills do not
 * accumulate in the engine), their quotes and the fair values. Public MarginEngine API only; never
 * the wall clock, never Math.random: the same seed, catalog and call sequence give the same events.
 */

import { CONTRACT, MarginBookLevels, isMarginError } from '../margin/index.ts';
import type { CreateMarginOrder, MarginEngine, MarginOrderRecord, MarketState } from '../margin/index.ts';
import { Crowd, CrowdAction, type CrowdOptions } from './crowd.ts';

/** Crowd knobs (crowd.ts): the fair value moves one tick per drift; sizes 1..20 contracts; users "sim-margin-activity-...". */
export interface MarginActivityOptions extends CrowdOptions {
  /** Markets to animate; default: every market of the engine's catalog. */
  tickers?: readonly string[];
  /** Half-width of the price band around the catalog mark, ppm of it. Default 200,000 (±20%). */
  bandPpm?: number;
}

/** Cash each synthetic participant's Margin account gets: $1,000,000,000, never to run dry. */
const PARTICIPANT_CASH = 10_000_000_000_000; // centicents
const SUBACCOUNT = 0;
/** Quote distance from fair value, ticks: spread 1..SPREAD_TICKS_MAX plus depth 0..DEPTH_TICKS_MAX. */
const SPREAD_TICKS_MAX = 3;
const DEPTH_TICKS_MAX = 5;
const PPM = 1_000_000;

class MarginFlow {
  readonly market: MarketState;
  readonly tick: number;
  /** Fair value, anchor (the catalog mark) and band edges, all in whole ticks. */
  fairTicks: number;
  readonly anchorTicks: number;
  readonly lowTicks: number;
  readonly highTicks: number;
  /** Half-width of the band, ticks (the reversion scale). */
  readonly bandTicks: number;
  /** quotes[maker][side]: resting quote orders, oldest first (side 0 bid, 1 ask). */
  readonly quotes: MarginOrderRecord[][][];

  constructor(market: MarketState, bandPpm: number, makers: number) {
    this.market = market;
    const spec = market.spec;
    this.tick = spec.tickSize;
    this.anchorTicks = Math.max(1, Math.round(spec.markPrice / spec.tickSize));
    this.bandTicks = Math.floor((this.anchorTicks * bandPpm) / PPM);
    this.lowTicks = Math.max(1, this.anchorTicks - this.bandTicks);
    this.highTicks = this.anchorTicks + this.bandTicks;
    this.fairTicks = this.anchorTicks;
    this.quotes = [];
    for (let m = 0; m < makers; m++) this.quotes.push([[], []]);
  }
}

export class MarginActivity {
  readonly userIds: readonly string[];
  readonly #engine: MarginEngine;
  readonly #crowd: Crowd;
  readonly #flows: MarginFlow[];
  readonly #levels: MarginBookLevels;
  readonly #detach: () => void;
  /** client_order_id = prefix + a counter: unique per user for the engine (which refuses duplicates). */
  readonly #clientIdPrefix: string;
  // One reused request record: the engine copies what it keeps.
  readonly #request: CreateMarginOrder;
  #orderCount = 0;
  #actions = 0;
  /** Level changes seen on the animated markets since construction (the feed's orderbook_delta count). */
  #bookUpdates = 0;

  constructor(engine: MarginEngine, options: MarginActivityOptions) {
    this.#engine = engine;
    const prefix = options.userPrefix ?? 'sim-margin-activity';
    const crowd = new Crowd(options, { userPrefix: prefix, quoteContractsMax: 20 });
    this.#crowd = crowd;
    this.userIds = crowd.userIds;
    for (const userId of this.userIds) {
      engine.ensureAccount(userId, SUBACCOUNT, PARTICIPANT_CASH);
      engine.forgetHistoryOf(userId);
    }
    const bandPpm = options.bandPpm ?? 200_000;
    const tickers = options.tickers ?? engine.catalog.markets.map((spec) => spec.ticker);
    this.#flows = [];
    this.#levels = new MarginBookLevels(engine);
    for (const ticker of tickers) {
      const market = engine.markets.get(ticker);
      if (market === undefined) throw new Error(`MarginActivity: unknown margin market ${ticker}`);
      this.#flows.push(new MarginFlow(market, bandPpm, crowd.makerIds.length));
      this.#levels.watch(ticker);
    }
    this.#detach = engine.observe({ onOrder: (order) => this.#onOrder(order), onTrade: () => undefined });
    this.#clientIdPrefix = `${prefix}-`;
    this.#request = {
      ticker: '', clientOrderId: '', side: 'bid', count: 0, price: 0, timeInForce: 'good_till_canceled', selfTradePrevention: 'maker',
      postOnly: true, reduceOnly: false, cancelOrderOnPause: false, expirationTs: null,
    };
  }

  /** Actions taken so far (quotes, cancels, takers, drifts). */
  get actionCount(): number {
    return this.#actions;
  }

  /** Stops watching the engine's events (the server's shutdown); step() then returns 0. */
  detach(): void {
    this.#detach();
    this.#flows.length = 0;
  }

  /**
   * Acts until at least `maxBookUpdates` level changes were made (or an action budget of
   * 4 x maxBookUpdates + 16 ran out, e.g. no market). Returns the level changes produced. `nowMs` is
   * the caller's clock; the engine stamps events with its own injected clock.
   */
  step(nowMs: number, maxBookUpdates: number): number {
    void nowMs;
    const flows = this.#flows;
    if (flows.length === 0 || maxBookUpdates <= 0) return 0;
    const start = this.#bookUpdates;
    const actionBudget = maxBookUpdates * 4 + 16;
    for (let i = 0; i < actionBudget && this.#bookUpdates - start < maxBookUpdates; i++) {
      this.#act(flows[this.#crowd.random.nextInt(flows.length)]);
    }
    return this.#bookUpdates - start;
  }

  #onOrder(order: MarginOrderRecord): void {
    // Same diff as the feed's: one orderbook_delta per level this event changed (unwatched: none).
    this.#bookUpdates += this.#levels.diff(order.ticker).length;
  }

  #act(flow: MarginFlow): void {
    this.#actions++;
    const action = this.#crowd.nextAction();
    if (action === CrowdAction.DRIFT) this.#drift(flow);
    else if (action === CrowdAction.TAKE) this.#take(flow);
    else this.#requote(flow);
  }

  /**
   * One tick of a mean-reverting walk (the pull is full at half the band); the fair value stays
   * inside the band less the widest quote offset, so quotes stay in it too.
   */
  #drift(flow: MarginFlow): void {
    const distance = flow.fairTicks - flow.anchorTicks;
    const step = this.#crowd.revertingStep(distance, Math.floor((Math.abs(distance) * 800) / Math.max(1, flow.bandTicks)));
    const offsetMax = SPREAD_TICKS_MAX + DEPTH_TICKS_MAX;
    const low = flow.lowTicks + offsetMax;
    const high = flow.highTicks - offsetMax;
    const next = flow.fairTicks + step;
    // A band narrower than the quote offsets: the fair value stays at the anchor.
    flow.fairTicks = low > high ? flow.anchorTicks : next < low ? low : next > high ? high : next;
  }

  /** A maker refreshes one side: drops its stalest quote when full, then quotes near fair value. */
  #requote(flow: MarginFlow): void {
    const crowd = this.#crowd;
    const random = crowd.random;
    const engine = this.#engine;
    const maker = random.nextInt(crowd.makerIds.length);
    const sideCode = random.nextInt(2);
    const quotes = flow.quotes[maker][sideCode];
    const userId = crowd.makerIds[maker];
    const stale = crowd.staleQuote(quotes);
    if (stale !== null) engine.cancel(userId, SUBACCOUNT, stale.orderId);
    const offset = 1 + random.nextInt(SPREAD_TICKS_MAX) + random.nextInt(DEPTH_TICKS_MAX + 1);
    let ticks = sideCode === 0 ? flow.fairTicks - offset : flow.fairTicks + offset;
    // Never cross the book (a real user's quote included): post-only would refuse it anyway.
    const book = flow.market.book;
    if (sideCode === 0) {
      const ask = book.best('ask');
      if (ask !== null) ticks = Math.min(ticks, Math.ceil(ask / flow.tick) - 1);
    } else {
      const bid = book.best('bid');
      if (bid !== null) ticks = Math.max(ticks, Math.floor(bid / flow.tick) + 1);
    }
    if (ticks < flow.lowTicks || ticks > flow.highTicks) return;
    const request = this.#request;
    request.ticker = flow.market.spec.ticker;
    request.clientOrderId = this.#clientIdPrefix + String(++this.#orderCount);
    request.side = sideCode === 0 ? 'bid' : 'ask';
    request.price = ticks * flow.tick;
    request.count = this.#size();
    request.timeInForce = 'good_till_canceled';
    request.postOnly = true;
    request.selfTradePrevention = 'maker';
    const result = engine.create(userId, SUBACCOUNT, request);
    if (!isMarginError(result) && result.order.status === 'resting') quotes.push(result.order);
  }

  /** A taker crosses for part of the best level with an IOC (only at a price inside the band). */
  #take(flow: MarginFlow): void {
    const random = this.#crowd.random;
    const buy = random.nextInt(2) === 0;
    const level = flow.market.book.levels(buy ? 'ask' : 'bid')[0];
    if (level === undefined) return;
    const ticks = level.price / flow.tick;
    if (ticks < flow.lowTicks || ticks > flow.highTicks) return;
    let available = 0;
    for (const order of level.orders) available += order.remaining;
    const want = this.#size();
    const request = this.#request;
    request.ticker = flow.market.spec.ticker;
    request.clientOrderId = this.#clientIdPrefix + String(++this.#orderCount);
    request.side = buy ? 'bid' : 'ask';
    request.price = level.price;
    request.count = want < available ? want : available;
    request.timeInForce = 'immediate_or_cancel';
    request.postOnly = false;
    request.selfTradePrevention = 'taker_at_cross';
    const takerIds = this.#crowd.takerIds;
    this.#engine.create(takerIds[random.nextInt(takerIds.length)], SUBACCOUNT, request);
  }

  /** A quote or take size: whole contracts in count units (the Margin exchange trades whole contracts). */
  #size(): number {
    return this.#crowd.wholeContracts() * CONTRACT;
  }
}
