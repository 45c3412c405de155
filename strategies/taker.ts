/**
 * A simple taker for tests and demos: crosses the spread with an immediate-or-cancel order when a
 * condition holds: every `everyBookUpdates`-th book update, and/or whenever the spread is at most
 * `maxSpreadTicks`. A buy takes the best ask, a sell the best bid; `side` picks bid, ask or
 * alternating. `maxOrders` bounds how many orders one deployment sends and `minIntervalMs` how
 * often. Owns the trigger only; every order goes through ctx (risk gate, then OMS).
 */

import { Deny, OrderFlags, definePlugin, requireCount } from '../src/strategy/index.ts';
import type { BookSide, Count, Strategy, StrategyBook, StrategyContext } from '../src/strategy/index.ts';

export interface TakerParams {
  size: string;
  side: 'bid' | 'ask' | 'alternate';
  /** Take on every N-th book update of a market; 0 = not by count. */
  everyBookUpdates: number;
  /** Take whenever the spread is at most this many ticks; null = not by spread. */
  maxSpreadTicks: number | null;
  /** Orders this deployment may send in all (a bound for tests and demos). */
  maxOrders: number;
  /** Least time between two orders, ms. */
  minIntervalMs: number;
}

export const paramsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    size: { type: 'string', pattern: '^[0-9]{1,9}(\\.[0-9]{1,2})?$', default: '1.00', description: 'contracts per order' },
    side: { enum: ['bid', 'ask', 'alternate'], default: 'alternate', description: 'bid buys YES at the ask, ask sells YES at the bid' },
    everyBookUpdates: { type: 'integer', minimum: 0, default: 0, description: 'take every N-th update; 0 off' },
    maxSpreadTicks: { type: ['integer', 'null'], minimum: 0, default: null, description: 'take when spread <= ticks; null off' },
    maxOrders: { type: 'integer', minimum: 0, default: 100, description: 'orders in all' },
    minIntervalMs: { type: 'integer', minimum: 0, default: 0, description: 'least time between orders, ms' },
  },
} as const;

export class Taker implements Strategy {
  readonly #size: Count;
  readonly #side: TakerParams['side'];
  readonly #every: number;
  readonly #maxSpread: number;
  readonly #maxOrders: number;
  readonly #minIntervalMs: number;
  #updates = 0;
  #sent = 0;
  #lastSentMs = -Infinity;
  #nextSide: BookSide = 'bid';
  /** Deny code of the last attempt, for tests and status. */
  lastDeny: Deny = Deny.NONE;

  constructor(params: Readonly<TakerParams>) {
    this.#size = requireCount(params.size, 'size');
    this.#side = params.side;
    this.#every = params.everyBookUpdates;
    this.#maxSpread = params.maxSpreadTicks ?? -1;
    this.#maxOrders = params.maxOrders;
    this.#minIntervalMs = params.minIntervalMs;
  }

  get sent(): number {
    return this.#sent;
  }

  onBook(book: StrategyBook, ctx: StrategyContext): void {
    this.#updates++;
    if (this.#sent >= this.#maxOrders || !book.synced) return;
    const bid = book.bestBidLevel;
    const ask = book.bestAskLevel;
    const byCount = this.#every > 0 && this.#updates % this.#every === 0;
    const bySpread = this.#maxSpread >= 0 && bid >= 0 && ask >= 0 && ask - bid <= this.#maxSpread;
    if (!byCount && !bySpread) return;
    const nowMs = ctx.nowMs();
    if (nowMs - this.#lastSentMs < this.#minIntervalMs) return;
    const side = this.#side === 'alternate' ? this.#nextSide : this.#side;
    const level = side === 'bid' ? ask : bid;
    if (level < 0) return; // nothing to take on that side
    this.lastDeny = ctx.place(book.ticker, side, book.grid.priceAt(level), this.#size, OrderFlags.IOC);
    if (this.lastDeny !== Deny.NONE) return;
    this.#sent++;
    this.#lastSentMs = nowMs;
    if (this.#side === 'alternate') this.#nextSide = side === 'bid' ? 'ask' : 'bid';
  }
}

export default definePlugin<TakerParams>({
  name: 'taker',
  paramsSchema,
  create: (params) => new Taker(params),
});
