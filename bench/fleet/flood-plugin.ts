/**
 * A bench and test plugin (bench/fleet, test/fleet), not a strategy: it wants more write budget than any account has. Every timer tick
 * it places `burst` post-only bids far below the market (while fewer than `burst` of its creates
 * are held) and cancels its oldest orders beyond `restingMax`, so it always has demand and a
 * bounded number of resting orders. `placesMax` > 0 caps the orders it places in all: a quiet
 * runtime with a few resting orders (the kill switch phase), not a flood.
 */

import { OrderFlags, definePlugin, requireCount, requirePrice } from '../../src/strategy/index.ts';
import type { Count, OrderView, Price, Strategy, StrategyBook, StrategyContext } from '../../src/strategy/index.ts';

class Flood implements Strategy {
  readonly #ticker: string;
  readonly #price: Price;
  readonly #count: Count;
  readonly #burst: number;
  readonly #restingMax: number;
  /** Orders it may still place; -1: no cap. */
  #placesLeft: number;
  readonly #open: OrderView[] = [];

  constructor(ticker: string, price: Price, count: Count, burst: number, restingMax: number, placesMax: number) {
    this.#ticker = ticker;
    this.#price = price;
    this.#count = count;
    this.#burst = burst;
    this.#restingMax = restingMax;
    this.#placesLeft = placesMax > 0 ? placesMax : -1;
  }

  onBook(_book: StrategyBook): void {}

  onTimer(_nowMs: number, ctx: StrategyContext): void {
    if (ctx.budget().held < this.#burst) {
      for (let i = 0; i < this.#burst && this.#placesLeft !== 0; i++) {
        ctx.place(this.#ticker, 'bid', this.#price, this.#count, OrderFlags.POST_ONLY);
        if (this.#placesLeft > 0) this.#placesLeft--;
      }
    }
    const open = ctx.openOrders(this.#ticker, this.#open);
    for (let i = 0; i < open - this.#restingMax; i++) ctx.cancel(this.#open[i]!.clientOrderId); // a held create just leaves the queue
  }
}

export default definePlugin<{ ticker: string; price: string; count: string; burst: number; restingMax: number; placesMax: number }>({
  name: 'bench-flood',
  timerIntervalMs: 20,
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['ticker'],
    properties: {
      ticker: { type: 'string' },
      price: { type: 'string', default: '0.0200' },
      count: { type: 'string', default: '1.00' },
      burst: { type: 'integer', minimum: 1, default: 4 },
      restingMax: { type: 'integer', minimum: 1, default: 6 },
      placesMax: { type: 'integer', minimum: 0, default: 0 },
    },
  },
  create: (params) => new Flood(params.ticker, requirePrice(params.price, 'price'), requireCount(params.count, 'count'), params.burst, params.restingMax, params.placesMax),
});
