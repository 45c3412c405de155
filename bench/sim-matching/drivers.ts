/**
 * Replays an OrderStream against a matcher: the simulator engine (public API, synthetic users
 * without history, a counting listener subscribed like a server's) or the naive sorted-array
 * baseline. Both drivers take identical decisions from identical book states (makers never cross,
 * takers are a separate user, so no self-trade path differs), keep per-market fair values and live
 * order lists, and cap each market's live orders so the book depth stays steady over long runs.
 * One step = one matcher call (create or cancel).
 */

import type { Count, Price, PriceGrid } from '../../src/core/index.ts';
import { SimEngine, isSimError as isSimErrorImported, parseCatalog } from '../../src/sim/engine/index.ts';
import type { CreateOrderParams, Market, Order } from '../../src/sim/engine/index.ts';
import { NaiveBook, type NaiveOrder } from './naive-book.ts';
import { OP_ADD as ADD, OP_CANCEL as CANCEL, OP_TAKE as TAKE, type OrderStream } from './order-stream.ts';

// Module-local copies: under tsx (CommonJS) imported bindings are getter calls per use.
const OP_ADD = ADD;
const OP_CANCEL = CANCEL;
const OP_TAKE = TAKE;

const isSimError = isSimErrorImported;
const MAKERS = 8;
/** Live resting orders kept per market at most by default: about the depth of an active market-maker book. */
export const LIVE_CAP = 300;

export interface Driver {
  step(i: number): void;
  /** Orders resting now (sanity check between drivers). */
  resting(): number;
}

function clampLevel(level: number, levels: number): number {
  return level < 0 ? 0 : level >= levels ? levels - 1 : level;
}

/** Picks a live order index from `pick`, dropping dead entries (bounded tries); -1 when none. */
function pickLive<T>(live: T[], pick: number, isLive: (item: T) => boolean): number {
  for (let tries = 0; tries < 4 && live.length > 0; tries++) {
    const at = (pick + tries * 7919) % live.length;
    if (isLive(live[at])) return at;
    live[at] = live[live.length - 1];
    live.pop();
  }
  return -1;
}

export function benchCatalog(markets: number) {
  const structures = ['linear_cent', 'deci_cent', 'tapered_deci_cent', 'center_half_edge_deci_cent'];
  return parseCatalog({
    series: [{ ticker: 'KXBENCH', title: 'Bench', fee_type: 'quadratic' }],
    events: [{ event_ticker: 'KXBENCH-1', series_ticker: 'KXBENCH', title: 'Bench' }],
    markets: Array.from({ length: markets }, (_, m) => ({
      ticker: `KXBENCH-1-M${m}`, event_ticker: 'KXBENCH-1', status: 'active', price_level_structure: structures[m % structures.length],
      close_time: '2027-01-01T00:00:00Z', initial_fair_price: '0.5000',
    })),
  }, 'bench catalog');
}

export class EngineDriver implements Driver {
  readonly engine: SimEngine;
  readonly events = { deltas: 0, fills: 0 };
  readonly #stream: OrderStream;
  readonly #markets: Market[];
  readonly #fair: Int32Array;
  readonly #live: Order[][];
  readonly #makers: string[];
  readonly #params: CreateOrderParams;
  readonly #liveCap: number;

  constructor(stream: OrderStream, markets: number, liveCap = LIVE_CAP) {
    this.#liveCap = liveCap;
    let clockMs = 1_790_000_000_000;
    this.engine = new SimEngine({ now: () => clockMs, seed: 1, catalog: benchCatalog(markets) });
    void clockMs;
    this.#stream = stream;
    this.#markets = [...this.engine.markets()];
    this.#fair = new Int32Array(markets);
    for (let m = 0; m < markets; m++) this.#fair[m] = this.#markets[m].grid.levelOf(5000 as Price);
    this.#live = this.#markets.map(() => []);
    this.#makers = Array.from({ length: MAKERS }, (_, i) => `maker-${i}`);
    for (const user of [...this.#makers, 'taker']) {
      this.engine.addUser(user, { keepHistory: false });
      this.engine.deposit(user, 0, 0, 1e14 as never);
    }
    const events = this.events;
    this.engine.subscribe({ onBookDelta: () => { events.deltas++; }, onFill: () => { events.fills++; } });
    this.#params = { ticker: '', side: 'bid', price: 0 as Price, count: 0 as Count, timeInForce: 'good_till_canceled', selfTradePrevention: 'taker_at_cross', clientOrderId: null };
  }

  resting(): number {
    let total = 0;
    for (const live of this.#live) for (const o of live) if (o.status === 'resting') total++;
    return total;
  }

  step(i: number): void {
    const stream = this.#stream;
    const m = stream.market[i];
    const market = this.#markets[m];
    const grid: PriceGrid = market.grid;
    const live = this.#live[m];
    const pick = stream.pick[i];
    if ((pick & 15) === 0) this.#fair[m] = clampLevel(this.#fair[m] + ((pick & 16) === 0 ? -1 : 1), grid.levelCount);
    let kind = stream.kind[i];
    if (kind === OP_ADD && live.length >= this.#liveCap) kind = OP_CANCEL;
    const side = stream.side[i];
    const params = this.#params;
    params.ticker = market.ticker;
    params.side = side === 0 ? 'bid' : 'ask';
    params.count = stream.count[i] as Count;
    if (kind === OP_CANCEL) {
      const at = pickLive(live, pick, (o) => o.status === 'resting');
      if (at === -1) return;
      const order = live[at];
      live[at] = live[live.length - 1];
      live.pop();
      this.engine.cancelOrder(order.userId, order.orderId);
      return;
    }
    if (kind === OP_TAKE) {
      const best = side === 0 ? market.bestAsk() : market.bestBid();
      if (best === 0) return;
      const level = clampLevel(grid.levelOf(best) + (side === 0 ? stream.offset[i] : -stream.offset[i]), grid.levelCount);
      params.price = grid.priceAt(level);
      params.timeInForce = 'immediate_or_cancel';
      this.engine.createOrder('taker', params);
      return;
    }
    let level = side === 0 ? this.#fair[m] - 1 - stream.offset[i] : this.#fair[m] + 1 + stream.offset[i];
    const opposite = side === 0 ? market.bestAsk() : market.bestBid();
    if (opposite !== 0) {
      const oppositeLevel = grid.levelOf(opposite);
      if (side === 0 && level >= oppositeLevel) level = oppositeLevel - 1;
      if (side === 1 && level <= oppositeLevel) level = oppositeLevel + 1;
    }
    if (level < 0 || level >= grid.levelCount) return;
    params.price = grid.priceAt(level);
    params.timeInForce = 'good_till_canceled';
    const result = this.engine.createOrder(this.#makers[pick % MAKERS], params);
    if (!isSimError(result) && result.order.status === 'resting') live.push(result.order);
  }
}

export class NaiveDriver implements Driver {
  readonly #stream: OrderStream;
  readonly #books: NaiveBook[];
  readonly #grids: PriceGrid[];
  readonly #fair: Int32Array;
  readonly #live: NaiveOrder[][];
  readonly #liveCap: number;

  constructor(stream: OrderStream, markets: number, liveCap = LIVE_CAP) {
    this.#liveCap = liveCap;
    // Same grids as the engine driver, read from an engine built on the same catalog.
    const engine = new SimEngine({ now: () => 0, seed: 1, catalog: benchCatalog(markets) });
    this.#grids = engine.markets().map((m) => m.grid);
    this.#stream = stream;
    this.#books = this.#grids.map(() => new NaiveBook());
    this.#fair = new Int32Array(markets);
    for (let m = 0; m < markets; m++) this.#fair[m] = this.#grids[m].levelOf(5000 as Price);
    this.#live = this.#grids.map(() => []);
  }

  resting(): number {
    let total = 0;
    for (const live of this.#live) for (const o of live) if (o.live) total++;
    return total;
  }

  step(i: number): void {
    const stream = this.#stream;
    const m = stream.market[i];
    const book = this.#books[m];
    const grid = this.#grids[m];
    const live = this.#live[m];
    const pick = stream.pick[i];
    if ((pick & 15) === 0) this.#fair[m] = clampLevel(this.#fair[m] + ((pick & 16) === 0 ? -1 : 1), grid.levelCount);
    let kind = stream.kind[i];
    if (kind === OP_ADD && live.length >= this.#liveCap) kind = OP_CANCEL;
    const side = stream.side[i];
    if (kind === OP_CANCEL) {
      const at = pickLive(live, pick, (o) => o.live);
      if (at === -1) return;
      const order = live[at];
      live[at] = live[live.length - 1];
      live.pop();
      book.cancel(order);
      return;
    }
    if (kind === OP_TAKE) {
      const best = side === 0 ? book.bestAsk() : book.bestBid();
      if (best === 0) return;
      const level = clampLevel(grid.levelOf(best as Price) + (side === 0 ? stream.offset[i] : -stream.offset[i]), grid.levelCount);
      book.submit(side, grid.priceAt(level), stream.count[i], true);
      return;
    }
    let level = side === 0 ? this.#fair[m] - 1 - stream.offset[i] : this.#fair[m] + 1 + stream.offset[i];
    const opposite = side === 0 ? book.bestAsk() : book.bestBid();
    if (opposite !== 0) {
      const oppositeLevel = grid.levelOf(opposite as Price);
      if (side === 0 && level >= oppositeLevel) level = oppositeLevel - 1;
      if (side === 1 && level <= oppositeLevel) level = oppositeLevel + 1;
    }
    if (level < 0 || level >= grid.levelCount) return;
    const order = book.submit(side, grid.priceAt(level), stream.count[i], false);
    if (order.live) live.push(order);
  }
}
